import { ok } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';

/** The kinds of twin object, as the API names them (a draft's changes, metadata types). */
export type TwinObjectType = 'pointOfInterest' | 'zone' | 'asset' | 'modelAsset' | 'measurement';

/** What the console knows of a kind of twin object: its words, and its routes to read a name and to delete one. */
export interface ConsoleObjectKind {
  /** The kind in a sentence: "This point of interest has no metadata type". */
  word: string;
  /** Reads one through a context (a site's or a draft's id); undefined when it shows none. */
  read(session: ConsoleSession, ctx: string, id: string): Promise<{ name: string } | undefined>;
  /** Deletes one through a context; throws the API's refusal. */
  remove(session: ConsoleSession, ctx: string, id: string): Promise<void>;
  /** Gives one a metadata type (or none) through a context; throws the API's refusal. */
  retype(session: ConsoleSession, ctx: string, id: string, change: Retype): Promise<void>;
}

/**
 * A metadata type given to an object; `dropUnfitting` drops the free metadata that does not fit a
 * first type instead of being refused (docs/twins.md, "Free metadata").
 */
export interface Retype {
  metadataTypeId: string | null;
  dropUnfitting?: boolean;
}

/**
 * One definition per kind of twin object (docs/architecture.md, "Recipe: a twin object kind"): the
 * panels, the draft's list of changes and the metadata panel read their words and routes here.
 */
export const TWIN_OBJECT_KINDS: Record<TwinObjectType, ConsoleObjectKind> = {
  pointOfInterest: {
    word: 'point of interest',
    read: async (session, contextId, pointOfInterestId) =>
      (
        await session.api.GET('/v1/twin/{contextId}/points-of-interest/{pointOfInterestId}', {
          params: { path: { contextId, pointOfInterestId } },
        })
      ).data,
    remove: async (session, contextId, pointOfInterestId) => {
      await ok(
        session.api.DELETE('/v1/twin/{contextId}/points-of-interest/{pointOfInterestId}', {
          params: { path: { contextId, pointOfInterestId } },
        }),
      );
    },
    retype: async (session, contextId, pointOfInterestId, body) => {
      await ok(
        session.api.PATCH('/v1/twin/{contextId}/points-of-interest/{pointOfInterestId}', {
          params: { path: { contextId, pointOfInterestId } },
          body,
        }),
      );
    },
  },
  zone: {
    word: 'zone',
    read: async (session, contextId, zoneId) =>
      (await session.api.GET('/v1/twin/{contextId}/zones/{zoneId}', { params: { path: { contextId, zoneId } } })).data,
    remove: async (session, contextId, zoneId) => {
      await ok(session.api.DELETE('/v1/twin/{contextId}/zones/{zoneId}', { params: { path: { contextId, zoneId } } }));
    },
    retype: async (session, contextId, zoneId, body) => {
      await ok(session.api.PATCH('/v1/twin/{contextId}/zones/{zoneId}', { params: { path: { contextId, zoneId } }, body }));
    },
  },
  asset: {
    word: 'asset',
    read: async (session, contextId, assetId) =>
      (await session.api.GET('/v1/twin/{contextId}/assets/{assetId}', { params: { path: { contextId, assetId } } })).data,
    remove: async (session, contextId, assetId) => {
      await ok(session.api.DELETE('/v1/twin/{contextId}/assets/{assetId}', { params: { path: { contextId, assetId } } }));
    },
    retype: async (session, contextId, assetId, body) => {
      await ok(session.api.PATCH('/v1/twin/{contextId}/assets/{assetId}', { params: { path: { contextId, assetId } }, body }));
    },
  },
  modelAsset: {
    word: 'placed model',
    read: async (session, contextId, modelAssetId) =>
      (
        await session.api.GET('/v1/twin/{contextId}/model-assets/{modelAssetId}', {
          params: { path: { contextId, modelAssetId } },
        })
      ).data,
    remove: async (session, contextId, modelAssetId) => {
      await ok(
        session.api.DELETE('/v1/twin/{contextId}/model-assets/{modelAssetId}', { params: { path: { contextId, modelAssetId } } }),
      );
    },
    retype: async (session, contextId, modelAssetId, body) => {
      await ok(
        session.api.PATCH('/v1/twin/{contextId}/model-assets/{modelAssetId}', {
          params: { path: { contextId, modelAssetId } },
          body,
        }),
      );
    },
  },
  measurement: {
    word: 'measurement',
    read: async (session, contextId, measurementId) =>
      (
        await session.api.GET('/v1/twin/{contextId}/measurements/{measurementId}', {
          params: { path: { contextId, measurementId } },
        })
      ).data,
    remove: async (session, contextId, measurementId) => {
      await ok(
        session.api.DELETE('/v1/twin/{contextId}/measurements/{measurementId}', {
          params: { path: { contextId, measurementId } },
        }),
      );
    },
    retype: async (session, contextId, measurementId, body) => {
      await ok(
        session.api.PATCH('/v1/twin/{contextId}/measurements/{measurementId}', {
          params: { path: { contextId, measurementId } },
          body,
        }),
      );
    },
  },
};

/** The kind an object type the API names is, if the console knows it. */
export function kindOf(objectType: string): ConsoleObjectKind | undefined {
  return Object.hasOwn(TWIN_OBJECT_KINDS, objectType) ? TWIN_OBJECT_KINDS[objectType as TwinObjectType] : undefined;
}
