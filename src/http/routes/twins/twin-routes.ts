import { Type } from '@sinclair/typebox';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import {
  CreateDraftBody,
  DraftChangesSchema,
  DraftSchema,
  EmptyBody,
  PublishBody,
  TwinSchema,
  toDraftBody,
  toTwinBody,
} from './twin-schemas.js';
import { ContextIdParams } from './twin-value-schemas.js';

const READ = 'Needs read on the site.';
const WRITE = 'Needs edit on the site. 409 DraftNotOpen: the draft is published or discarded.';

export default async function twinRoutes(app: RegionApp) {
  app.addSchema(TwinSchema);
  app.addSchema(DraftSchema);
  const Twin = Type.Ref('Twin');
  const Draft = Type.Ref('TwinDraft');
  const { twins, twinLayers } = app.services;

  app.get(
    '/v1/twin/:contextId',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'getTwin',
        summary: "Get a site's live twin, or a draft's view of it",
        description: `contextId is a site id (the live twin, draftId null) or a draft id (draftId set). The live twin is made on first use, named after the site. ${READ}`,
        params: ContextIdParams,
        response: { 200: Twin, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { twin, draftId } = await twins.get(request.principal, request.params.contextId);
      return toTwinBody(twin, draftId, await twinLayers.ofSite(twin.site_id));
    },
  );

  app.get(
    '/v1/twin/:contextId/drafts',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'listTwinDrafts',
        summary: "List a site's twin drafts",
        description: `contextId is a site id. Oldest first (createdAt, then id). ${READ}`,
        params: ContextIdParams,
        querystring: Type.Object(Paging, { additionalProperties: false }),
        response: { 200: Type.Array(Draft), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const drafts = await twins.listDrafts(request.principal, request.params.contextId, clampLimit(limit), offset ?? 0);
      return drafts.map(toDraftBody);
    },
  );

  app.post(
    '/v1/twin/:contextId/drafts',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'createTwinDraft',
        summary: "Open a draft of a site's twin",
        description:
          'contextId is a site id. A draft stores only its changes; the live twin is untouched until it is published. Needs edit on the site.',
        params: ContextIdParams,
        body: CreateDraftBody,
        response: { 201: Draft, ...errors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const body = toDraftBody(await twins.createDraft(request.principal, request.params.contextId, request.body.name));
      // A draft is read as a twin context of its own.
      return created(reply, app.baseUrl, `/v1/twin/${body.id}`, body);
    },
  );

  app.get(
    '/v1/twin/:contextId/changes',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'listTwinDraftChanges',
        summary: "A draft's changes, one per object it adds, changes or removes",
        description: `contextId is a draft id. ${READ}`,
        params: ContextIdParams,
        response: { 200: DraftChangesSchema, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({ items: await twins.changes(request.principal, request.params.contextId) }),
  );

  app.post(
    '/v1/twin/:contextId/publish',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'publishTwinDraft',
        summary: 'Publish a draft into the live twin',
        description: `contextId is a draft id. All its changes, or the changeIds given, in one transaction: added objects inserted, changed fields patched onto the live objects as they are now, removed objects deleted; a change whose object the live twin has deleted meanwhile is skipped (listed in skipped). The draft is then published. 400 ValidationError naming changeIds: a change the draft does not hold. 409 DraftChangeDependsOn: a chosen change names a zone the draft adds in a change left out (the message names both). 409 CircularityFound or MaxDepthExceeded: the live twin's zones after the publish would form a cycle or reach a ninth level (nothing published). A published zone removal re-attaches the live zone's children and points of interest as a live delete does; a published zoneId or parentZoneId naming a zone the live twin deleted after the draft named it is cleared to null (top level) likewise. ${WRITE}`,
        params: ContextIdParams,
        body: PublishBody,
        response: { 200: Draft, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toDraftBody(await twins.publish(request.principal, request.params.contextId, request.body.changeIds)),
  );

  app.post(
    '/v1/twin/:contextId/discard',
    {
      config: { scope: 'write:hierarchy' },
      schema: {
        tags: ['Twins'],
        operationId: 'discardTwinDraft',
        summary: 'Discard a draft',
        description: `contextId is a draft id. Its changes stay readable; it takes no more writes. ${WRITE}`,
        params: ContextIdParams,
        body: EmptyBody,
        response: { 200: Draft, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => toDraftBody(await twins.discard(request.principal, request.params.contextId)),
  );
}
