import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { Principal } from '../../domain/access/principal.js';
import { validationError } from '../../domain/errors.js';
import type { ObjectKind } from '../../domain/metadata/metadata-types.js';

/**
 * The metadata type a create or PATCH names, if any (a string): one of the organization's that
 * applies to the kind; 400 naming body.metadataTypeId otherwise. null and absent pass.
 */
export async function checkMetadataTypeApplies(
  types: Pick<MetadataTypeRepository, 'find'>,
  principal: Principal,
  metadataTypeId: unknown,
  kind: { objectType: ObjectKind; plural: string },
): Promise<void> {
  if (typeof metadataTypeId !== 'string') return;
  const type = await types.find(principal.orgId, metadataTypeId);
  if (!type) throw validationError(`body.metadataTypeId: no metadata type ${metadataTypeId} in this organization`);
  const kinds = JSON.parse(type.applies_to) as ObjectKind[];
  if (!kinds.includes(kind.objectType)) {
    throw validationError(`body.metadataTypeId: metadata type ${metadataTypeId} does not apply to ${kind.plural}`);
  }
}
