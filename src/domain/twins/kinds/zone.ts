import type { SharedFields, TwinObjectKind, Volume } from '../object-fields.js';
import { normalizedVolume } from '../volume-rules.js';

/** A zone: a named volume that holds points of interest and nests in another (docs/twins.md, "Zones"). */
export type ZoneFields = SharedFields & {
  description: string;
  volume: Volume;
  parentZoneId: string | null;
  color: string | null;
};

export type NewZone = Pick<ZoneFields, 'name' | 'volume'> & Partial<Omit<ZoneFields, 'name' | 'volume' | 'metadata'>>;

export const ZONE: TwinObjectKind<'zone', ZoneFields, NewZone> = {
  objectType: 'zone',
  auditName: 'zone',
  notFound: 'Zone not found',
  plural: 'zones',
  newFields: (input) => ({
    description: '',
    ...input,
    metadata: {},
    parentZoneId: input.parentZoneId ?? null,
    color: input.color ?? null,
    metadataTypeId: input.metadataTypeId ?? null,
    volume: normalizedVolume(input.volume, 'body.volume'),
  }),
  changes: (patch) => (patch.volume === undefined ? patch : { ...patch, volume: normalizedVolume(patch.volume, 'body.volume') }),
  // Every zone write holds the twin's row: nesting checks read all the zones.
  locksTwin: () => true,
};
