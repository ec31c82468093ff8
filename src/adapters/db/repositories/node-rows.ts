import { randomUUID } from 'node:crypto';
import type { NodeRow } from '../schema.js';

/**
 * A new node row as the store encodes it: the materialized path and depth from the parent,
 * the site context (a site is its own), the lower-cased name key. Without a parent, the
 * organization's root node, whose id is the organization id.
 */
export function newNodeRow(
  parent: NodeRow | null,
  fields: { kind: string; name: string; now: string; id?: string; address?: string | null },
): NodeRow {
  const id = fields.id ?? randomUUID();
  return {
    id,
    org_id: parent?.org_id ?? id,
    parent_id: parent?.id ?? null,
    kind: fields.kind,
    name: fields.name,
    name_key: fields.name.toLowerCase(),
    address: fields.kind === 'site' ? (fields.address ?? null) : null,
    site_id: fields.kind === 'site' ? id : (parent?.site_id ?? null),
    path: `${parent?.path ?? '/'}${id}/`,
    depth: parent ? parent.depth + 1 : 0,
    size_bytes: 0,
    is_processing: 0,
    is_failed: 0,
    trashed_at: null,
    trash_root_id: null,
    required_identity_provider: null,
    created_at: fields.now,
    updated_at: fields.now,
  };
}
