import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { MetadataTypeRow, RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import { retypeSections } from '../../domain/metadata/free-metadata.js';
import { definitionOf, type ObjectKind } from '../../domain/metadata/metadata-types.js';
import type { MetadataSections } from '../../domain/metadata/metadata-values.js';

type Tx = Transaction<RegionalSchema>;

/** At most this many unfitting properties named in one answer. */
const MAX_NAMED = 20;

/**
 * The metadata type a create or PATCH names, if any (a string): one of the organization's that
 * applies to the kind; 400 naming body.metadataTypeId otherwise. null and absent pass. In the
 * write's transaction (tx) the type's row is held (MetadataTypeRepository.hold), so that its
 * deletion, which counts the objects using it, takes turns with this write.
 */
export async function checkMetadataTypeApplies(
  types: Pick<MetadataTypeRepository, 'find' | 'hold'>,
  principal: Principal,
  metadataTypeId: unknown,
  kind: { objectType: ObjectKind; plural: string },
  tx?: Tx,
): Promise<MetadataTypeRow | undefined> {
  if (typeof metadataTypeId !== 'string') return undefined;
  const type = tx ? await types.hold(tx, principal.orgId, metadataTypeId) : await types.find(principal.orgId, metadataTypeId);
  if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
  const kinds = JSON.parse(type.applies_to) as ObjectKind[];
  if (!kinds.includes(kind.objectType)) {
    throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to ${kind.plural}`);
  }
  return type;
}

/** What a PATCH that may set metadataTypeId does to the object's sections. */
export interface Retyped {
  /** The sections to store, when they change. */
  metadata?: MetadataSections;
  /** What the audit event adds: metadataCleared (another type, or none), metadataDropped (the paths dropUnfitting removed). */
  details: { metadataCleared?: true; metadataDropped?: string[] };
}

/**
 * In a PATCH's transaction, with the object as it reads it: the new type (if `after` names one)
 * held and checked for the kind, and the object's sections as the new type leaves them
 * (retypeSections, docs/twins.md "Free metadata"): kept, cleared, or only those that fit it. A
 * type given to an object with free sections that do not all fit: 400 naming each one under
 * body.metadataTypeId, unless dropUnfitting.
 */
export async function retypedMetadata(
  types: Pick<MetadataTypeRepository, 'find' | 'hold'>,
  tx: Tx,
  principal: Principal,
  kind: { objectType: ObjectKind; plural: string },
  current: { metadataTypeId?: string | null; metadata?: MetadataSections },
  after: string | null | undefined,
  dropUnfitting: boolean,
): Promise<Retyped> {
  const before = current.metadataTypeId ?? null;
  if (after === undefined || after === before) return { details: {} };
  const row = await checkMetadataTypeApplies(types, principal, after, kind, tx);
  const result = retypeSections(before, after, current.metadata ?? {}, row && definitionOf(row), dropUnfitting);
  if (!result.ok) {
    const named = result.errors.slice(0, MAX_NAMED).map((error) => `${error.path}: ${error.message}`);
    if (result.errors.length > MAX_NAMED) named.push(`and ${result.errors.length - MAX_NAMED} more`);
    throw validationError(
      `body.metadataTypeId: ${result.errors.length} of the object's metadata properties do not fit metadata type ${after} (send dropUnfitting: true to drop them): ${named.join('; ')}`,
    );
  }
  const details: Retyped['details'] = {};
  if (result.cleared) details.metadataCleared = true;
  if (result.dropped.length > 0) details.metadataDropped = result.dropped;
  return { metadata: result.sections, details };
}
