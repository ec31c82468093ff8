import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { Address, Name, NodeIdParams, ParentIdParams, toNodeBody } from './node-schemas.js';

const NameBody = Type.Object({ name: Name }, { additionalProperties: false, examples: [{ name: 'North' }] });
const SiteBody = Type.Object(
  { name: Name, address: Address },
  { additionalProperties: false, examples: [{ name: 'Harbour plant', address: '1 Quay Street, Hull' }] },
);
const UpdateBody = Type.Object(
  { name: Type.Optional(Name), address: Type.Optional(Address) },
  { additionalProperties: false, minProperties: 1 },
);
const MoveParams = Type.Object({ nodeId: Type.String({ maxLength: 64 }), newParentId: Type.String({ maxLength: 64 }) });
const MoveBody = Type.Union([
  Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
  Type.Null(),
]);
const MoveQuery = Type.Object({ force: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

const MOVE_CODES =
  'AccessRightsChangeRequired, MaxDepthExceeded, CircularityFound, NodeHaveMembershipsAttached, NodesInDifferentRegions, NodeCannotBeMoved, DerivativesNotInCommonParent, SourcesNotInCommonParent, DataBundleLinkedToTwin, DoesNotMeetHierarchyConstraints, MoveNodeFailed';

export default async function writeRoutes(app: RegionApp) {
  const creations = [
    { kind: 'division', summary: 'Create a division under the organization', body: NameBody },
    { kind: 'site', summary: 'Create a site', body: SiteBody },
    { kind: 'folder', summary: 'Create a folder', body: NameBody },
  ] as const;
  for (const { kind, summary, body } of creations) {
    app.post(
      `/v1/nodes/:parentId/${kind}`,
      {
        config: { scope: 'write:hierarchy' },
        schema: {
          tags: ['Nodes'],
          operationId: `create${kind[0]?.toUpperCase()}${kind.slice(1)}`,
          summary,
          description: `Returns the full ${kind} object. 409 DoesNotMeetHierarchyConstraints or MaxDepthExceeded when the parent cannot hold it.`,
          params: ParentIdParams,
          body,
          response: { 201: Type.Ref('Node'), ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const input = request.body as { name: string; address?: string };
        const row = await app.services.nodes.create(request.principal, request.params.parentId, kind, input.name, input.address);
        return created(reply, app.baseUrl, `/v1/nodes/${row.id}`, toNodeBody(row));
      },
    );
  }

  app.patch(
    '/v1/nodes/:nodeId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Nodes'],
        operationId: 'updateNode',
        summary: 'Rename or update a node',
        params: NodeIdParams,
        body: UpdateBody,
        response: { 200: Type.Ref('Node'), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => toNodeBody(await app.services.nodes.update(request.principal, request.params.nodeId, request.body)),
  );

  app.patch(
    '/v1/nodes/:nodeId/move/:newParentId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Nodes'],
        operationId: 'moveNode',
        summary: 'Move a node under a new parent',
        description: `Moves the node with its subtree, its derivatives and its sources, a bundle's planning projects (its dependants) and a project's bundle, as far as they are linked siblings. force (body or query) accepts a change of access. 409 codes: ${MOVE_CODES}.`,
        params: MoveParams,
        querystring: MoveQuery,
        body: MoveBody,
        response: { 200: Type.Ref('Node'), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const force = request.body?.force ?? request.query.force ?? false;
      const { nodeId, newParentId } = request.params;
      return toNodeBody(await app.services.tree.move(request.principal, nodeId, newParentId, force));
    },
  );

  app.delete(
    '/v1/nodes/:nodeId',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Trash'],
        operationId: 'deleteNode',
        summary: 'Move a node and its subtree to the trash',
        description:
          '409 NodeHasDerivatives (with derivatives[]), NodeNotInDeletableState (with isProcessing and isFailed), NodeHasBundleDependants or DeleteNodeFailed.',
        params: NodeIdParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.tree.softDelete(request.principal, request.params.nodeId);
      return reply.code(204).send(null);
    },
  );

  app.patch(
    '/v1/nodes/:nodeId/restore',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Trash'],
        operationId: 'restoreNode',
        summary: 'Restore a node from the trash',
        description:
          '409 StorageLimitExceeded when the restored bytes do not fit in the quota; RestoreNodeFailed when the node is not a trash entry or its parent is trashed.',
        params: NodeIdParams,
        response: { 200: Type.Ref('Node'), ...errors(401, 403, 404, 409) },
      },
    },
    async (request) => toNodeBody(await app.services.tree.restore(request.principal, request.params.nodeId)),
  );

  app.delete(
    '/v1/nodes/:nodeId/hard',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Trash'],
        operationId: 'hardDeleteNode',
        summary: 'Delete a trashed node permanently',
        description: '409 NoNodeRemoved when the node is not in the trash in a removable state.',
        params: NodeIdParams,
        response: { 204: Type.Null(), ...errors(401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await app.services.tree.hardDelete(request.principal, request.params.nodeId);
      return reply.code(204).send(null);
    },
  );
}
