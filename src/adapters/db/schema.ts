import type { Generated } from 'kysely';

/** Row types of both stores, as Kysely sees them. Flags are integers (0/1) on both dialects. */

export interface OrganizationRow {
  id: string;
  name: string;
  region: string;
  storage_quota: number | null;
  seat_limit: number | null;
  email_domains: string; // JSON array of lower-case domains
  /** The organization's request bucket size and refill per second; null: the configured default. */
  rate_limit_bucket: number | null;
  rate_limit_refill_per_second: number | null;
  /** At most this many queued or running processings; null: only the deployment's slots. */
  processing_slots: number | null;
  created_at: string;
  updated_at: string;
}

export interface UserRow {
  id: string;
  email: string;
  password_hash: string | null;
  first_name: string;
  last_name: string;
  kind: 'user' | 'service';
  deactivated_at: string | null;
  /** Tokens issued before this instant are refused: the "not before" of DESIGN.md section 5. */
  tokens_not_before: string | null;
  created_at: string;
  updated_at: string;
}

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
  created_at: string;
  updated_at: string | null;
}

/** A bearer token an organization's identity provider uses on /scim/v2; only its hash is kept. */
export interface ScimTokenRow {
  id: string;
  org_id: string;
  name: string;
  token_hash: string;
  created_by: string;
  created_at: string;
  last_used_at: string | null;
}

/** Mail of the embedded default, which has no SMTP server: a page lists it. */
export interface MailOutboxRow {
  id: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  created_at: string;
}

export interface OAuthApplicationRow {
  client_id: string;
  org_id: string;
  name: string;
  flow: 'client-credentials' | 'authorization-code';
  is_native: number;
  redirect_uris: string; // JSON array
  secret_hash: string | null;
  scopes: string; // space separated
  service_user_id: string | null;
  /** Grants (refresh and access tokens) issued before this instant are refused: set when scopes are dropped. */
  grants_not_before: string | null;
  created_at: string;
  updated_at: string;
}

export interface SigningKeyRow {
  kid: string;
  algorithm: string;
  private_jwk: string;
  public_jwk: string;
  created_at: string;
  retired_at: string | null;
}

/** A refresh token that has been used: its hash, so a second use is recognized (rotation, reuse detection). */
export interface RefreshTokenUseRow {
  token_hash: string;
  family_id: string;
  client_id: string;
  used_at: string;
  /** When the token would have expired anyway: the row is kept until then. */
  expires_at: string;
}

/** A grant (refresh family) ended before its time: its refresh and access tokens are refused. */
export interface RevokedGrantRow {
  family_id: string;
  client_id: string;
  revoked_at: string;
  /** When every token of the family has expired anyway: the row is kept until then. */
  expires_at: string;
}

/** Secrets the authorization server generates once and every copy shares (e.g. the refresh-token key). */
export interface ServerSecretRow {
  name: string;
  secret: string; // base64
  created_at: string;
}

export interface AuthorizationCodeRow {
  code_hash: string;
  client_id: string;
  user_id: string;
  org_id: string;
  redirect_uri: string;
  code_challenge: string;
  scopes: string; // space separated, the approved ones
  identity_provider: string;
  /** The refresh family the exchange starts: a second use of the code revokes it. */
  family_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SessionRow {
  id_hash: string;
  user_id: string;
  /** How the user signed in: "local" (e-mail and password) until an SSO sign-in sets its provider. */
  identity_provider: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

/** The embedded job queue (SQLite only; PostgreSQL runs pg-boss). */
export interface JobRow {
  id: string;
  kind: string;
  payload: string; // JSON
  payload_version: number;
  singleton_key: string | null;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  attempts: number;
  progress: number | null;
  /** Set by each claim; a worker's heartbeat and finish count only under the lease it claimed with. */
  lease: string | null;
  heartbeat_at: string | null;
  failure_reason: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
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
  scim_tokens: ScimTokenRow;
  mail_outbox: MailOutboxRow;
}

export interface NodeRow {
  id: string;
  org_id: string;
  parent_id: string | null;
  kind: string;
  name: string;
  /** Lower-cased name: the key of name search and browse order. */
  name_key: string;
  address: string | null;
  /** The nearest site at or above this node: folders under a site take data, others take sites. */
  site_id: string | null;
  /** Ids from the organization down to this node, each followed by '/': "/org/div/site/". */
  path: string;
  depth: number;
  size_bytes: number;
  is_processing: number;
  is_failed: number;
  trashed_at: string | null;
  /** The node whose soft delete put this one in the trash (itself for the node deleted). */
  trash_root_id: string | null;
  /** Callers must have signed in through this identity provider, here and below (SSORestrictedResource). */
  required_identity_provider: string | null;
  created_at: string;
  updated_at: string;
}

export interface NodeLinkRow {
  /** derivative: from source to derivative; dependant: from bundle to dependant; twin: from bundle to twin. */
  kind: 'derivative' | 'dependant' | 'twin';
  from_id: string;
  to_id: string;
  created_at: string;
}

export interface NodeThumbnailRow {
  node_id: string;
  content_type: string;
  bytes: Uint8Array;
  etag: string;
  updated_at: string;
}

/** Keyed by organization and id: administrative roles have the catalog's ids in every organization. */
export interface RoleRow {
  id: string;
  org_id: string;
  name: string;
  /** Lower-cased name: unique within the organization. */
  name_key: string;
  kind: 'administrative' | 'custom';
  permissions: string; // JSON array
  created_at: string;
  updated_at: string;
}

export interface MembershipRow {
  node_id: string;
  principal_id: string;
  principal_type: 'user' | 'service' | 'group';
  role_id: string;
  created_at: string;
}

export interface GroupRow {
  id: string;
  org_id: string;
  name: string;
  name_key: string;
  /** The one division that owns the group; null: an organization group, part of every division. */
  division_id: string | null;
  scim_managed: number;
  scim_external_id: string | null;
  saml_linked: number;
  created_at: string;
  updated_at: string;
}

export interface GroupMemberRow {
  group_id: string;
  user_id: string;
  created_at: string;
}

/** sending: stored while its mail is handed to the server, removed if that fails. */
export type InvitationState = 'sending' | 'pending' | 'accepted' | 'revoked';

export interface InvitationRow {
  id: string;
  org_id: string;
  /** The node the role is given on: the organization node for an organization invitation. */
  node_id: string;
  email: string;
  role_id: string;
  state: InvitationState;
  /** SHA-256 of the secret in the mail's link. */
  token_hash: string;
  invited_by: string;
  accepted_by: string | null;
  created_at: string;
  updated_at: string;
  accepted_at: string | null;
}

/** Who changed what in an organization's people and permissions, and when. */
export interface AuditEventRow {
  id: string;
  org_id: string;
  occurred_at: string;
  /** principal: a token's user or service user; scim: an identity provider's token; invitee: an invitation's acceptance. */
  actor_type: 'principal' | 'scim' | 'invitee' | 'admin-cli';
  actor_id: string;
  /** e.g. group.created, membership.removed, user.deactivated */
  action: string;
  target_type: 'user' | 'group' | 'membership' | 'role' | 'invitation' | 'scim-token';
  target_id: string;
  details: string; // JSON object
}

export type StoredObjectPurpose = 'site-file' | 'bundle-input' | 'attachment' | 'derivative';
export type StoredObjectState = 'pending' | 'finalized' | 'expired';

/**
 * Bytes the region keeps in the blob store, from the upload's initiation on. A pending row
 * reserves quota (reserved_bytes) until it is finalized (its bytes count on its node instead)
 * or expires. blob_key ending in "/" names a prefix (a derivative's many files).
 */
export interface StoredObjectRow {
  id: string;
  org_id: string;
  purpose: StoredObjectPurpose;
  /** The node the bytes belong to: the site file itself, the bundle, the site of an attachment, the derivative. */
  node_id: string;
  /** Site files: the folder or site the file goes into (its identity is parent and name). */
  parent_id: string | null;
  session_id: string | null;
  /** Attachments: the twin object they hang on. */
  object_id: string | null;
  name: string;
  name_key: string;
  declared_bytes: number;
  reserved_bytes: number;
  stored_bytes: number | null;
  blob_key: string;
  multipart_upload_id: string | null;
  etag: string | null;
  format: string | null;
  state: StoredObjectState;
  created_by: string;
  created_at: string;
  expires_at: string;
  finalized_at: string | null;
}

export interface UploadSessionRow {
  id: string;
  org_id: string;
  bundle_id: string;
  state: 'open' | 'finalized' | 'expired';
  created_by: string;
  created_at: string;
  expires_at: string;
  finalized_at: string | null;
}

export interface BundleRow {
  node_id: string;
  org_id: string;
  state: 'created' | 'uploaded' | 'processing' | 'ready' | 'failed';
  dbu_path: string;
  /** The finalized session that is the bundle's one input component. */
  input_session_id: string | null;
  input_bytes: number;
  input_format: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProcessingRow {
  id: string;
  org_id: string;
  bundle_id: string;
  state: 'queued' | 'running' | 'succeeded' | 'failed';
  cost: number;
  idempotency_key: string | null;
  failure_reason: string | null;
  derivative_node_id: string | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A key (or a prefix, ending in "/") whose bytes go; with the multipart upload to abort under it, if any. */
export interface BlobDeletionRow {
  blob_key: string;
  upload_id: string | null;
  requested_at: string;
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
  blob_deletions: BlobDeletionRow;
  invitations: InvitationRow;
  audit_events: AuditEventRow;
}
