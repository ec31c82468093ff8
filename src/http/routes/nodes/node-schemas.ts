import { type Static, Type } from '@sinclair/typebox';
import { PERMISSIONS } from '../../../domain/access/permissions.js';
import { NODE_KINDS } from '../../../domain/nodes/hierarchy.js';
import type { NodeListing } from '../../../domain/records/regional.js';

// NUL characters are refused for every JSON body by http/plugins/json-body.ts.
export const Name = Type.String({
  minLength: 1,
  maxLength: 255,
  description: '1 to 255 characters (code points), stored as given',
});
export const Address = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'Site address, 1 to 255 characters (code points)',
});
export const NodeKindSchema = Type.Union(
  NODE_KINDS.map((kind) => Type.Literal(kind)),
  { description: 'Kind of node' },
);

export const NodeSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    type: NodeKindSchema,
    parentId: Type.Union([Type.String(), Type.Null()]),
    organizationId: Type.String({ format: 'uuid' }),
    address: Type.Optional(Type.String()),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    isProcessing: Type.Boolean(),
    isFailed: Type.Boolean(),
    trashedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  {
    $id: 'Node',
    title: 'Node',
    examples: [
      {
        id: '8e2b6a10-4c7f-4d2a-b5e1-93f0c6d7a214',
        name: 'Harbour plant',
        type: 'site',
        parentId: '5a9d3f61-0b2e-4c78-a4d6-7e1f2b8c0d95',
        organizationId: '0f3c5e2a-7d41-4b8e-9a61-2c9f0d1e5b73',
        address: '1 Quay Street, Hull',
        createdAt: '2026-11-25T09:00:00.000Z',
        updatedAt: '2026-11-25T09:00:00.000Z',
        isProcessing: false,
        isFailed: false,
        trashedAt: null,
      },
    ],
  },
);
export type NodeBody = Static<typeof NodeSchema>;

export const NodeRef = Type.Object({ id: Type.String(), name: Type.String() });

export const NodeDetailSchema = Type.Object(
  {
    ...NodeSchema.properties,
    derivatives: Type.Array(NodeRef, { description: 'Active derivative outputs of this node' }),
    sources: Type.Array(NodeRef, { description: 'Active source inputs of this node' }),
    permissions: Type.Array(Type.Union(PERMISSIONS.map((permission) => Type.Literal(permission))), {
      description:
        "The caller's permissions on this node: those of its roles on the node and its ancestors (its groups' included). A client shows only the actions they allow; the API checks each call anyway",
    }),
  },
  { title: 'NodeDetail' },
);

export const NodeIdParams = Type.Object({ nodeId: Type.String({ minLength: 1, maxLength: 64 }) });
export const ParentIdParams = Type.Object({ parentId: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * A node's body. One object literal of one shape, address undefined (not serialized) but for a
 * site's: built with a spread, the bodies of a page were promoted to V8's old generation in about
 * half of the server runs under load, a tenth of a browse's CPU (docs/performance.md, "The caller
 * through a group").
 */
export function toNodeBody(row: NodeListing): NodeBody {
  return {
    id: row.id,
    name: row.name,
    type: row.kind as NodeBody['type'],
    parentId: row.parent_id,
    organizationId: row.org_id,
    address: row.kind === 'site' && row.address !== null ? row.address : undefined,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    isProcessing: row.is_processing === 1,
    isFailed: row.is_failed === 1,
    trashedAt: row.trashed_at,
  };
}
