/**
 * The records of a regional store (the node tree, access, people's places, uploads and
 * processing) as both stores hold them: what repositories return and the API maps from. Flags
 * are integers (0/1) on both dialects; times are ISO strings.
 */

import type { ComparisonMethod, ComparisonState } from '../comparisons/comparison-lifecycle.js';
import type { BundleState, ProcessingState } from '../processing/bundle-lifecycle.js';

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

/** The columns a node's body in a list needs (toNodeBody, and name_key for a cursor): half the row, and no long path. */
export const NODE_LISTING_COLUMNS = [
  'id',
  'name',
  'name_key',
  'kind',
  'parent_id',
  'org_id',
  'address',
  'created_at',
  'updated_at',
  'is_processing',
  'is_failed',
  'trashed_at',
] as const satisfies readonly (keyof NodeRow)[];
export type NodeListing = Pick<NodeRow, (typeof NODE_LISTING_COLUMNS)[number]>;

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
  target_type:
    | 'user'
    | 'group'
    | 'membership'
    | 'role'
    | 'invitation'
    | 'scim-token'
    | 'metadata-type'
    | 'twin-draft'
    | 'point-of-interest'
    | 'asset'
    | 'zone'
    | 'model-asset'
    | 'twin-layer'
    | 'comparison'
    | 'library-tag'
    | 'library-model'
    | 'planning-project'
    | 'embed-session';
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
  state: BundleState;
  dbu_path: string;
  /** The finalized session that is the bundle's one input component. */
  input_session_id: string | null;
  input_bytes: number;
  input_format: string | null;
  /** A mesh input's triangles as finalize counted them (docs/processing.md, "Mesh inputs"); null when it could not tell, for other inputs, and for inputs from before. */
  input_triangles: number | null;
  created_at: string;
  updated_at: string;
}

export interface ProcessingRow {
  id: string;
  org_id: string;
  bundle_id: string;
  state: ProcessingState;
  cost: number;
  idempotency_key: string | null;
  failure_reason: string | null;
  derivative_node_id: string | null;
  /** JSON of the derivative's Georeference (domain/georeferencing/georeference.ts); null for other outputs and older rows. */
  georeference: string | null;
  /** JSON `{min, max}` of a point cloud's points in the file's coordinates (regional migration 0016); null for other outputs and older rows. */
  bounds: string | null;
  /** The job running it, recorded when it starts (regional migration 0024): where its progress is read. */
  job_id: string | null;
  /** JSON array of a point cloud's tile attributes, e.g. ["rgb","intensity"] (regional migration 0025); null for other outputs and older rows. */
  attributes: string | null;
  /** The points a point cloud's tiles hold (regional migration 0027), which price a comparison; null for other outputs and older rows. */
  point_count: number | null;
  /** 1 from the submission's commit until its job is queued (regional migration 0031): a repeated Idempotency-Key is not answered from it yet. */
  launch_pending: number;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** A comparison of two processed point clouds of one site (docs/comparisons.md; regional migration 0027). */
export interface ComparisonRow {
  id: string;
  org_id: string;
  site_id: string;
  name: string;
  reference_bundle_id: string;
  compared_bundle_id: string;
  method: ComparisonMethod;
  max_distance: number;
  tolerance: number;
  cost: number;
  state: ComparisonState;
  failure_reason: string | null;
  /** JSON of ComparisonStats and ComparisonHistogram (domain/comparisons/comparison-figures.ts) once ready. */
  stats: string | null;
  histogram: string | null;
  /** JSON of the tiles' georeference and `{min, max}` extent once ready, as a processing's: the twin layer's frame. */
  georeference: string | null;
  bounds: string | null;
  /** JSON array of the tiles' attributes (rgb, distance), once ready. */
  attributes: string | null;
  /** The job running it, recorded when it starts: where its progress is read. */
  job_id: string | null;
  /** Set while the site's twin shows the comparison as a layer. */
  layer_linked_at: string | null;
  /** The bytes of its stored outputs (tiles and CSV) once ready, counted in the storage use (regional migration 0028). */
  size_bytes: number;
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
  /** The housekeeping run that holds the entry, until `claimed_until`; then any run may take it. */
  claimed_by: string | null;
  claimed_until: string | null;
}

/** An organization's metadata type: a named, typed property set for twin objects (domain/metadata). */
export interface MetadataTypeRow {
  id: string;
  org_id: string;
  name: string;
  /** Lower-cased name: unique within the organization. */
  name_key: string;
  applies_to: string; // JSON array of object kinds
  properties: string; // JSON array of properties
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

/** A group with the number of its members. */
export type GroupWithCount = GroupRow & { member_count: number };

/** A site's live twin: one per site, made on first use (docs/twins.md). */
export interface TwinRow {
  id: string;
  org_id: string;
  site_id: string;
  name: string;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

export type TwinDraftStatus = 'open' | 'published' | 'discarded';

/** A draft of a site's twin: only its changes are stored (twin_draft_changes), never a copy. */
export interface TwinDraftRow {
  id: string;
  org_id: string;
  site_id: string;
  twin_id: string;
  name: string;
  status: TwinDraftStatus;
  created_by: string;
  created_at: string;
  updated_at: string;
  published_at: string | null;
}

/** A live twin object of any kind (asset, point of interest, zone, model asset). */
export interface TwinObjectRow {
  id: string;
  org_id: string;
  site_id: string;
  object_type: string;
  name: string;
  /** Lower-cased name, for search. */
  name_key: string;
  description: string;
  body: string; // JSON object: the kind's own fields
  parent_zone_id: string | null;
  zone_id: string | null;
  metadata_type_id: string | null;
  metadata: string | null; // JSON object: metadata sections
  /** Model assets: the library model placed (regional-0020); null for the other kinds. */
  library_model_id: string | null;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

export type TwinChangeKind = 'added' | 'modified' | 'removed';

/** What a draft does to one object, folded (docs/twins.md, "Drafts"). */
export interface TwinDraftChangeRow {
  id: string;
  draft_id: string;
  object_id: string;
  object_type: string;
  kind: TwinChangeKind;
  fields: string | null; // JSON: the whole object (added), the changed fields (modified), null (removed)
  /** A model asset's change: the library model it places (regional-0020); null for the other kinds. */
  library_model_id: string | null;
  created_at: string;
  updated_at: string;
}

export type LibraryModelStatus = 'pendingUpload' | 'processing' | 'ready' | 'failed';
export type PreviewUnavailableReason = 'OriginalTooLarge' | 'UnsupportedFormat' | 'Processing';

/** A model of the organization's asset library: its upload, its format and its preview (docs/asset-library.md). */
export interface LibraryModelRow {
  id: string;
  org_id: string;
  name: string;
  /** Lower-cased name: the list's order. */
  name_key: string;
  description: string;
  status: LibraryModelStatus;
  file_name: string;
  declared_bytes: number;
  /** Counted against the organization's storage quota while the upload is open. */
  reserved_bytes: number;
  stored_bytes: number | null;
  blob_key: string;
  multipart_upload_id: string | null;
  upload_expires_at: string | null;
  etag: string | null;
  /** Read from the bytes at finalize (domain/library/model-formats.ts). */
  format: string | null;
  previewable: number;
  preview_unavailable_reason: PreviewUnavailableReason | null;
  preview_blob_key: string | null;
  preview_bytes: number | null;
  thumbnail_blob_key: string | null;
  thumbnail_bytes: number | null;
  failure_reason: string | null;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
  finalized_at: string | null;
}

/** A tag of the organization's asset library. */
export interface LibraryTagRow {
  id: string;
  org_id: string;
  name: string;
  /** Lower-cased name: unique within the organization. */
  name_key: string;
  color: string | null;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

/** A tag carried by a library model. */
export interface LibraryModelTagRow {
  model_id: string;
  tag_id: string;
  created_at: string;
}

/** A layout of a planning project (docs/planning.md): the project's default one is made with it. */
export interface PlanningLayoutRow {
  id: string;
  org_id: string;
  /** The planningProject node. */
  project_id: string;
  name: string;
  is_default: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** A library model placed in a layout: a model asset of the plan, never of the twin (docs/planning.md). */
export interface PlanningModelAssetRow {
  id: string;
  org_id: string;
  project_id: string;
  layout_id: string;
  name: string;
  body: string; // JSON object: position, rotation, scale
  library_model_id: string;
  metadata_type_id: string | null;
  metadata: string; // JSON object: metadata sections
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

/** An embed session (regional-0022, docs/embedding.md): a read-only token for one target. */
export interface EmbedSessionRow {
  id: string;
  org_id: string;
  /** The target's site: its read permission and its layers. */
  site_id: string;
  target_type: 'twin' | 'twinDraft' | 'project' | 'layout';
  target_id: string;
  allowed_origins: string; // JSON array of origins
  /** SHA-256 of the token (crypto/secrets.ts hashToken); the token itself is never stored. */
  token_hash: string;
  /** The creator's sign-in provider: the token's reads meet the same SSO restrictions. */
  identity_provider: string;
  created_by: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** `embed` (POST /v1/embed-sessions) or `viewer` (a signed-in reader's own viewer: not listed); regional-0029. */
  purpose: 'embed' | 'viewer';
}

/** A webhook endpoint of an organization (docs/webhooks.md). */
export interface WebhookEndpointRow {
  id: string;
  org_id: string;
  url: string;
  event_types: string; // JSON array of event types, or ["*"]
  description: string | null;
  enabled: number;
  /** The signing secret (whsec_…), sealed (crypto/sealed-text.ts); shown in clear once, at creation and at rotation. */
  secret: string;
  /** The secret before the last rotation, sealed: deliveries carry its signature too until previous_secret_until. */
  previous_secret: string | null;
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
  /** Set when the receiver answered 410 Gone; cleared by enabling the endpoint again. */
  disabled_at: string | null;
  disabled_reason: string | null;
}

/** An event as sent: its id is the webhook-id header, its payload the body of every delivery of it. */
export interface WebhookEventRow {
  id: string;
  org_id: string;
  type: string;
  payload: string;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

/** One event's delivery to one endpoint: its attempts so far and the next one. */
export interface WebhookDeliveryRow {
  id: string;
  endpoint_id: string;
  org_id: string;
  event_id: string;
  event_type: string;
  /** Attempts made so far. */
  attempt: number;
  status: WebhookDeliveryStatus;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  /** When a worker may send it (again); null once it succeeded or gave up. */
  next_attempt_at: string | null;
  /** A worker's claim: until then no other worker sends it; a killed worker's claim simply runs out. */
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}
