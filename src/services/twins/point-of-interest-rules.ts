import { validationError } from '../../domain/errors.js';
import type { ReferenceCheck } from './object-kind-service.js';
import type { TwinObjectService } from './twin-object-service.js';

/**
 * A point of interest's rule that reads the twin: zoneId must name a zone the context shows (400
 * naming the field). Checked again in the write's transaction, the twin's row held: a zone
 * deleted meanwhile is then 400 rather than an id left naming no zone.
 */
export function namedZoneCheck(zones: Pick<TwinObjectService<'zone'>, 'find'>): ReferenceCheck<'pointOfInterest'> {
  return async (context, fields, tx) => {
    const { zoneId } = fields;
    if (typeof zoneId === 'string' && !(await zones.find(context, zoneId, tx))) {
      throw validationError(`body.zoneId: no zone ${zoneId} in this context`);
    }
  };
}
