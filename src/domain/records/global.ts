/**
 * The records of the global store (organizations, people, the authorization server, the job
 * queue) as both stores hold them: what repositories return and the API maps from. Flags are
 * integers (0/1) on both dialects; times are ISO strings.
 */

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
  /** Tokens issued before this instant are refused: the "not before" of docs/design/access.md#revocation. */
  tokens_not_before: string | null;
  created_at: string;
  updated_at: string;
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

/** A running worker's registration (SQLite only; PostgreSQL keeps it beside pg-boss). */
export interface JobWorkerRow {
  id: string;
  slots: number;
  host: string;
  pid: number;
  started_at: string;
  heartbeat_at: string;
  /** The worker counts towards capacity until then, unless it refreshes. */
  expires_at: string;
}

/** A user as an organization sees it: the global user row and its place in the organization. */
export type OrganizationMember = UserRow & {
  is_admin: number;
  scim_managed: number;
  scim_external_id: string | null;
  /** When the user was deactivated in this organization (null: active). */
  member_deactivated_at: string | null;
  joined_at: string;
  /** When its place in the organization last changed (deactivation, administrator flag). */
  member_updated_at: string | null;
};
