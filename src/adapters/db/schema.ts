import type { Generated } from 'kysely';
import type {
  AuthorizationCodeRow,
  JobRow,
  JobWorkerRow,
  MailOutboxRow,
  OAuthApplicationRow,
  OrganizationRow,
  RefreshTokenUseRow,
  RevokedGrantRow,
  ScimTokenRow,
  ServerSecretRow,
  SessionRow,
  SigningKeyRow,
  UserRow,
} from '../../domain/records/global.js';
import type {
  AuditEventRow,
  BlobDeletionRow,
  BundleRow,
  ComparisonRow,
  EmbedSessionRow,
  GroupMemberRow,
  GroupRow,
  InvitationRow,
  InvitationState,
  LibraryModelRow,
  LibraryModelTagRow,
  LibraryTagRow,
  MembershipRow,
  MetadataTypeRow,
  NodeLinkRow,
  NodeRow,
  NodeThumbnailRow,
  PlanningLayoutRow,
  PlanningModelAssetRow,
  ProcessingRow,
  RoleRow,
  StoredObjectPurpose,
  StoredObjectRow,
  StoredObjectState,
  TwinDraftChangeRow,
  TwinDraftRow,
  TwinObjectRow,
  TwinRow,
  UploadSessionRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookEventRow,
} from '../../domain/records/regional.js';

/** The tables of both stores, as Kysely sees them; the records themselves live in domain/records. */

export type {
  AuditEventRow,
  AuthorizationCodeRow,
  BlobDeletionRow,
  BundleRow,
  ComparisonRow,
  EmbedSessionRow,
  GroupMemberRow,
  GroupRow,
  InvitationRow,
  InvitationState,
  JobRow,
  JobWorkerRow,
  LibraryModelRow,
  LibraryModelTagRow,
  LibraryTagRow,
  MailOutboxRow,
  MembershipRow,
  MetadataTypeRow,
  NodeLinkRow,
  NodeRow,
  NodeThumbnailRow,
  OAuthApplicationRow,
  OrganizationRow,
  PlanningLayoutRow,
  PlanningModelAssetRow,
  ProcessingRow,
  RefreshTokenUseRow,
  RevokedGrantRow,
  RoleRow,
  ScimTokenRow,
  ServerSecretRow,
  SessionRow,
  SigningKeyRow,
  StoredObjectPurpose,
  StoredObjectRow,
  StoredObjectState,
  TwinDraftChangeRow,
  TwinDraftRow,
  TwinObjectRow,
  TwinRow,
  UploadSessionRow,
  UserRow,
  WebhookDeliveryRow,
  WebhookEndpointRow,
  WebhookEventRow,
};

/** A user's place in one organization: a seat while active and a person (kind user). */
export interface UserOrganizationRow {
  user_id: string;
  org_id: string;
  /** Mirrors an Organization Administrator membership on the organization node: the settings pages read it. */
  is_admin: number;
  /** Deactivated in this organization: its tokens for the organization stop at once. */
  deactivated_at: string | null;
  /**
   * Tokens for this organization issued before this instant are refused: set by each
   * deactivation, so a reactivation does not revive the tokens of before.
   */
  tokens_not_before?: string | null;
  /** Provisioned by the organization's identity provider over SCIM, with its id for the user. */
  scim_managed: Generated<number>;
  scim_external_id: string | null;
  /** A copy of the user's address, kept by triggers (global-0015): the order of /v1/users. */
  email?: string | null;
  created_at: string;
  updated_at: string | null;
}

export interface GlobalSchema {
  sessions: SessionRow;
  organizations: OrganizationRow;
  users: UserRow;
  user_organizations: UserOrganizationRow;
  oauth_applications: OAuthApplicationRow;
  signing_keys: SigningKeyRow;
  refresh_token_uses: RefreshTokenUseRow;
  revoked_grants: RevokedGrantRow;
  server_secrets: ServerSecretRow;
  authorization_codes: AuthorizationCodeRow;
  jobs: JobRow;
  job_workers: JobWorkerRow;
  scim_tokens: ScimTokenRow;
  mail_outbox: MailOutboxRow;
}

export interface RegionalSchema {
  nodes: NodeRow;
  node_links: NodeLinkRow;
  node_thumbnails: NodeThumbnailRow;
  roles: RoleRow;
  memberships: MembershipRow;
  groups: GroupRow;
  group_members: GroupMemberRow;
  stored_objects: StoredObjectRow;
  upload_sessions: UploadSessionRow;
  bundles: BundleRow;
  processings: ProcessingRow;
  comparisons: ComparisonRow;
  blob_deletions: BlobDeletionRow;
  invitations: InvitationRow;
  audit_events: AuditEventRow;
  metadata_types: MetadataTypeRow;
  twins: TwinRow;
  twin_drafts: TwinDraftRow;
  twin_objects: TwinObjectRow;
  twin_draft_changes: TwinDraftChangeRow;
  library_models: LibraryModelRow;
  library_tags: LibraryTagRow;
  library_model_tags: LibraryModelTagRow;
  planning_layouts: PlanningLayoutRow;
  planning_model_assets: PlanningModelAssetRow;
  embed_sessions: EmbedSessionRow;
  webhook_endpoints: WebhookEndpointRow;
  webhook_events: WebhookEventRow;
  webhook_deliveries: WebhookDeliveryRow;
}
