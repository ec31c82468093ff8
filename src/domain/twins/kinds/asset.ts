import type { SharedFields, TwinObjectKind, Volume } from '../object-fields.js';
import { normalizedVolume } from '../volume-rules.js';

/** An asset: a named volume drawn on the scan (docs/twins.md, "Assets"). */
export type AssetFields = SharedFields & { description: string; volume: Volume };

export type NewAsset = { name: string; description?: string; metadataTypeId?: string | null; volume: Volume };

/** The fields with the volume's rotations normalised (or the first that is no rotation refused). */
function checked<F extends { volume?: Volume }>(fields: F): F {
  if (fields.volume === undefined) return fields;
  return { ...fields, volume: normalizedVolume(fields.volume, 'body.volume') };
}

export const ASSET: TwinObjectKind<'asset', AssetFields, NewAsset> = {
  objectType: 'asset',
  auditName: 'asset',
  notFound: 'Asset not found',
  plural: 'assets',
  newFields: (input) => ({ description: '', ...checked(input), metadataTypeId: input.metadataTypeId ?? null, metadata: {} }),
  changes: checked,
  locksTwin: () => false,
};
