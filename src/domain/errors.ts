/**
 * Every error a client can see, from one table: the spec's codes are exact strings (including
 * its typo AdminsitrativeRoleNotFound). Statuses without a named code use the generic body.
 */
export const ERRORS = {
  // generic bodies
  ValidationError: { status: 400, message: 'The request is not valid' },
  BadRequest: { status: 400, message: 'Bad Request' },
  NotFound: { status: 404, error: 'Not Found', message: 'Not Found' },
  MethodNotAllowed: { status: 405, error: 'Method Not Allowed', message: 'Method Not Allowed' },
  PayloadTooLarge: { status: 413, error: 'Payload Too Large', message: 'Request body is too large' },
  UnsupportedMediaType: { status: 415, error: 'Unsupported Media Type', message: 'Unsupported media type' },
  RangeNotSatisfiable: { status: 416, error: 'Range Not Satisfiable', message: 'The range starts beyond the end of the file' },
  Internal: { status: 500, error: 'Internal Server Error', message: 'An unexpected error occurred' },
  // authentication and access control
  not_authenticated: { status: 401, message: 'A bearer token is required' },
  invalid_token: { status: 401, message: 'The access token is invalid or expired' },
  InsufficientScopes: { status: 403, error: 'Forbidden', message: 'Insufficient OAuth scopes' },
  ForbiddenResource: { status: 403, error: 'Forbidden', message: 'Forbidden resource' },
  // A valid embed token on a route, or for a target, outside its reach (docs/embedding.md).
  EmbedTokenOutOfReach: {
    status: 403,
    error: 'Forbidden',
    errorCode: 'EmbedTokenOutOfReach',
    message: 'The embed token does not reach this resource',
  },
  // The spec names this one by errorCode beside the generic error.
  SSORestrictedResource: {
    status: 403,
    error: 'Forbidden',
    errorCode: 'SSORestrictedResource',
    message: 'This resource requires a session signed in through a specific identity provider',
  },
  // Not 401, which tells clients to fetch a new token (it would loop), nor 403, which reads as
  // access denied: 421 Misdirected Request (RFC 9110 section 15.5.20), this server does not answer
  // for the organization. The body adds `apiUrl`, the base address of its region.
  OrganizationInAnotherRegion: {
    status: 421,
    message: "The token's organization lives in another region: call the apiUrl of this answer",
  },
  rate_limited: { status: 429, message: "The organization's request budget is spent; retry after Retry-After seconds" },
  // The spec's rate_limited, for the organization's tile budget (docs/operations.md#rate-limits).
  tiles_rate_limited: {
    status: 429,
    error: 'rate_limited',
    message: "The organization's tile budget is spent; retry after Retry-After seconds",
  },
  // node move
  AccessRightsChangeRequired: { status: 409, message: 'The move would change who can access the node' },
  MaxDepthExceeded: { status: 409, message: 'The move exceeds the maximum hierarchy depth' },
  CircularityFound: { status: 409, message: "The target parent is inside the moved node's subtree" },
  NodeHaveMembershipsAttached: { status: 409, message: 'Memberships in the moved subtree block the move' },
  NodesInDifferentRegions: { status: 409, message: 'The node and the target parent are in different regions' },
  NodeCannotBeMoved: { status: 409, message: 'This kind of node cannot be moved' },
  DerivativesNotInCommonParent: { status: 409, message: 'Derivative outputs are not under a common parent' },
  SourcesNotInCommonParent: { status: 409, message: 'Source inputs are not under a common parent' },
  DataBundleLinkedToTwin: { status: 409, message: 'The data bundle is linked to a twin' },
  DoesNotMeetHierarchyConstraints: { status: 409, message: 'The target does not allow this kind of child' },
  MoveNodeFailed: { status: 409, message: 'The node could not be moved' },
  // node delete and trash
  NodeHasDerivatives: { status: 409, message: 'Derivative outputs must be removed first' },
  NodeNotInDeletableState: { status: 409, message: 'The node is processing or failed' },
  NodeHasBundleDependants: { status: 409, message: 'The data bundle has dependants' },
  DeleteNodeFailed: { status: 409, message: 'The node could not be deleted' },
  StorageLimitExceeded: { status: 409, message: 'The organization storage quota would be exceeded' },
  NoNodeRemoved: { status: 409, message: 'The node is not in the trash in a removable state' },
  RestoreNodeFailed: { status: 409, message: 'The node could not be restored' },
  // uploads: the spec answers a quota refusal with 403 at upload initiation and 409 elsewhere
  StorageLimitExceededAtUpload: {
    status: 403,
    error: 'StorageLimitExceeded',
    message: 'The upload does not fit in the organization storage quota',
  },
  FileAlreadyExists: { status: 409, message: 'A file with the same identity exists' },
  FileNotCompatible: { status: 400, message: 'The file format is incompatible with the expected type' },
  MeshInputTooLarge: { status: 400, message: 'The mesh input exceeds a processing limit' },
  UploadSessionNotOpen: { status: 409, message: 'The upload session is finalized or expired' },
  BundleInputAlreadyExists: { status: 409, message: 'The bundle already holds its one input component' },
  // processing
  ProcessingCostMismatch: { status: 409, message: 'The submitted cost differs from the current cost' },
  NoInputDataFoundForProcessing: { status: 409, message: 'The bundle has no finalized input data' },
  InsufficientProcessingCapacity: { status: 409, message: 'No processing capacity is available; retry later' },
  FailedToLaunchProcessing: { status: 409, message: 'The processing job could not be launched; retry' },
  ProcessingAlreadyRunning: { status: 409, message: 'The bundle is already being processed' },
  // A repeat of a submission whose job is not queued yet: it may still be undone (docs/uploads.md, "Processing").
  IdempotencyKeyInUse: { status: 409, message: 'A submission with this Idempotency-Key is still being started; retry' },
  // roles and memberships (the invitation codes below also answer memberships)
  DuplicateRoleName: { status: 409, message: 'A role with this name exists in the organization' },
  RoleInUse: { status: 409, message: 'Memberships or pending invitations still give this role' },
  AdministrativeRoleNotEditable: { status: 409, message: "Administrative roles are the platform's and cannot be changed" },
  LastAdministrator: { status: 409, message: 'The organization would be left without an active administrator' },
  // users
  CannotDeactivateSelf: { status: 409, message: 'A user cannot deactivate themselves' },
  // groups (all 409, as the spec lists them)
  GroupHasSamlLink: { status: 409, message: 'The group membership is managed by a SAML/SSO link' },
  CannotInviteToSCIMGroup: { status: 409, message: 'The group membership is managed by SCIM provisioning' },
  UserAlreadyMember: { status: 409, message: 'The user is already a member' },
  CannotRemoveMemberFromSCIMGroup: { status: 409, message: 'The group membership is managed by SCIM provisioning' },
  DuplicateGroupName: { status: 409, message: 'A group with this name exists in the organization' },
  CannotUpdateMemberFromSCIMGroup: { status: 409, message: 'The group is managed by SCIM provisioning' },
  CannotRemoveSCIMGroup: { status: 409, message: 'The group is managed by SCIM provisioning' },
  CannotRemoveOrganizationGroup: { status: 409, message: 'The group has no single owning division' },
  GroupOutsideDivision: { status: 400, message: "The node is outside the group's owning division" },
  // invitations (POST /v1/nodes/{nodeId}/invitations and POST /v1/invitations)
  UserAlreadyInvited: { status: 409, message: 'A pending invitation exists for this address' },
  InvalidEmailDomain: { status: 403, message: 'The address domain is not allowed for the organization' },
  CustomRoleNotAssignableToDataNode: { status: 400, message: 'A custom role cannot be assigned at this node' },
  CustomRoleNotFound: { status: 400, message: 'The custom role does not exist' },
  // The spec's spelling, typo included.
  AdminsitrativeRoleNotFound: { status: 400, message: 'The administrative role does not exist' },
  AdministrativeRoleInvalidNode: {
    status: 400,
    message: 'An administrative role can only be assigned at the organization level',
  },
  InvitationEmailRejected: { status: 422, message: 'The mail server permanently rejected the address' },
  InvitationEmailNotSent: {
    status: 503,
    message: 'The mail server is temporarily unavailable; nothing was stored, retry the same request',
  },
  InvitationNotPending: { status: 409, message: 'The invitation is no longer pending' },
  // twins and their metadata (docs/design/twins.md)
  DraftNotOpen: { status: 409, message: 'The draft is published or discarded: it takes no more changes' },
  DraftChangeDependsOn: { status: 409, message: 'A change to publish names an object the draft adds in a change not published' },
  DataBundleNotInSite: { status: 409, message: "The data bundle is not in the twin's site (a nested site has its own twin)" },
  DataBundleHasNoTileset: {
    status: 409,
    message: 'The data bundle has no processed derivative with a tileset: process its point cloud or mesh first',
  },
  // planning (docs/design/planning.md#projects)
  BundleNotReady: { status: 409, message: 'The data bundle is not ready: upload and process its input first' },
  // comparisons (docs/comparisons.md)
  ComparisonNotReady: { status: 409, message: 'The comparison is not ready: it is queued, running or failed' },
  DuplicateMetadataTypeName: { status: 409, message: 'A metadata type with this name exists in the organization' },
  MetadataTypeInUse: { status: 409, message: 'Objects of a twin, an open draft or a planning layout use the metadata type' },
  // asset library (docs/design/asset-library.md)
  DuplicateTagName: { status: 409, message: 'A tag with this name exists in the organization' },
  LibraryModelNotReady: {
    status: 409,
    message: 'The library model is not ready: its upload is not finalized, its preview is being made, or it failed',
  },
  LibraryModelInUse: { status: 409, message: 'The library model is placed in a twin, an open draft or a planning layout' },
  LibraryModelDeleted: { status: 409, message: 'A model asset to publish places a library model that no longer exists' },
  // operations (docs/design/processes.md)
  DatabaseUnavailable: {
    status: 503,
    error: 'Service Unavailable',
    message: 'The database connection was lost; retry the request after Retry-After seconds',
    retryAfterSeconds: 1,
  },
  RegionNotServed: { status: 421, error: 'Misdirected Request', message: 'This address does not serve that region' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly extra: Record<string, unknown> | undefined;
  /** Sent as Retry-After: the refusal is temporary. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message?: string, extra?: Record<string, unknown>) {
    const entry: { status: number; message: string; error?: string; errorCode?: string; retryAfterSeconds?: number } =
      ERRORS[code];
    super(message ?? entry.message);
    this.status = entry.status;
    this.error = entry.error ?? code;
    this.retryAfterSeconds = entry.retryAfterSeconds;
    this.extra = entry.errorCode ? { errorCode: entry.errorCode, ...extra } : extra;
  }

  toBody(): Record<string, unknown> {
    return { statusCode: this.status, error: this.error, message: this.message, ...this.extra };
  }
}

export function validationError(message: string): ApiError {
  return new ApiError('ValidationError', message);
}
