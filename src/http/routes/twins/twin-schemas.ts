import { type Static, Type } from '@sinclair/typebox';
import type { TwinRow } from '../../../domain/records/regional.js';
import type { LayerView } from '../../../domain/twins/twin-layers.js';
import type { DraftView } from '../../../services/twins/twin-service.js';
import { LayerSchema } from './twin-layer-schemas.js';
import { ObjectName } from './twin-value-schemas.js';

const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Union([Timestamp, Type.Null()]);

export const TwinSchema = Type.Object(
  {
    id: Type.String(),
    siteId: Type.String(),
    name: Type.String(),
    draftId: Type.Union([Type.String(), Type.Null()], { description: 'The draft whose view this is; null for the live twin' }),
    layers: Type.Array(LayerSchema, {
      description:
        "The processed data bundles linked to the site's live twin (PUT /v1/twin/{siteId}/layers/{bundleId}), in the order they were linked; a draft's view shows the same. A bundle in the trash, or without a derivative serving a tileset, shows no layer.",
    }),
    units: Type.Literal('m'),
    upAxis: Type.Literal('Z'),
    publishedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Twin', title: 'Twin' },
);

export const DraftSchema = Type.Object(
  {
    id: Type.String(),
    twinId: Type.String(),
    siteId: Type.String(),
    name: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('published'), Type.Literal('discarded')]),
    changes: Type.Object(
      { added: Type.Integer(), modified: Type.Integer(), removed: Type.Integer() },
      { description: 'How many objects the draft adds, changes and removes' },
    ),
    skipped: Type.Optional(
      Type.Array(Type.String(), {
        description: 'On a publish: the changes not applied because the live twin had deleted their object meanwhile',
      }),
    ),
    createdBy: Type.String(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    publishedAt: NullableTimestamp,
  },
  { $id: 'TwinDraft', title: 'TwinDraft' },
);

export const DraftChangesSchema = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Type.String(),
      objectType: Type.String(),
      objectId: Type.String(),
      kind: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('removed')]),
    }),
  ),
});

export const CreateDraftBody = Type.Object({ name: ObjectName }, { additionalProperties: false });

export const PublishBody = Type.Object(
  {
    changeIds: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: 10_000,
        uniqueItems: true,
        description: 'Publish only these changes (ids from GET .../changes); all when absent',
      }),
    ),
  },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false });

export function toTwinBody(twin: TwinRow, draftId: string | null, layers: LayerView[]): Static<typeof TwinSchema> {
  return {
    id: twin.id,
    siteId: twin.site_id,
    name: twin.name,
    draftId,
    layers,
    units: 'm',
    upAxis: 'Z',
    publishedAt: twin.published_at,
    createdAt: twin.created_at,
    updatedAt: twin.updated_at,
  };
}

export function toDraftBody(draft: DraftView): Static<typeof DraftSchema> {
  return {
    id: draft.id,
    twinId: draft.twin_id,
    siteId: draft.site_id,
    name: draft.name,
    status: draft.status,
    changes: draft.changes,
    ...(draft.skipped ? { skipped: draft.skipped } : {}),
    createdBy: draft.created_by,
    createdAt: draft.created_at,
    updatedAt: draft.updated_at,
    publishedAt: draft.published_at,
  };
}
