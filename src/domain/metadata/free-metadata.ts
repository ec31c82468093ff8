import { isJsonObject, type JsonValue } from './merge-patch.js';
import type { FieldError } from './metadata-types.js';
import { codePointLength, METADATA_TYPE_LIMITS, type MetadataProperty } from './metadata-types.js';
import {
  ATTACHMENT_VALUE_TYPE,
  fitToType,
  LINK_VALUE_TYPE,
  METADATA_VALUE_LIMITS,
  type MetadataPatchResult,
  type MetadataSections,
  patchSections,
  valueProblem,
} from './metadata-values.js';

/**
 * Free metadata (docs/design/places.md#free-metadata, docs/twins.md "Free metadata"): the
 * sections of an object without a metadata type, and what becomes of them when it is given one.
 * No I/O.
 */

/** A free string is at most as long as a longText: every free value then fits some type's property. */
export const FREE_TEXT_LENGTH = METADATA_VALUE_LIMITS.longText;

/** The rules of the link and attachment values, as a type's link and attachment properties have them. */
const LINK: MetadataProperty = { section: '', name: '', type: 'link', required: false };
const ATTACHMENT: MetadataProperty = { section: '', name: '', type: 'attachment', required: false };

function nameProblem(name: string, what: string): string | undefined {
  const length = codePointLength(name);
  return length >= 1 && length <= METADATA_TYPE_LIMITS.nameLength
    ? undefined
    : `a ${what} name is 1 to ${METADATA_TYPE_LIMITS.nameLength} characters, as in a metadata type`;
}

/**
 * Why a free value is refused, or undefined: a string of at most 10,000 characters, a finite
 * number, a boolean, or a link or attachment value exactly as a typed property takes them.
 * Anything else (an array, another object) is refused.
 */
export function freeValueProblem(value: JsonValue): string | undefined {
  if (typeof value === 'string') {
    return codePointLength(value) <= FREE_TEXT_LENGTH ? undefined : `must be a string of at most ${FREE_TEXT_LENGTH} characters`;
  }
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : 'must be a finite number';
  if (typeof value === 'boolean') return undefined;
  if (isJsonObject(value) && value._p3d_type === LINK_VALUE_TYPE) return valueProblem(LINK, value);
  if (isJsonObject(value) && value._p3d_type === ATTACHMENT_VALUE_TYPE) return valueProblem(ATTACHMENT, value);
  return `must be a string, a number, a boolean, a link {"_p3d_type": "${LINK_VALUE_TYPE}", "url", "text"} or an attachment {"_p3d_type": "${ATTACHMENT_VALUE_TYPE}", "id", "name"}`;
}

/**
 * A JSON Merge Patch of an object without a type: merged as a typed object's, each value checked
 * by freeValueProblem and each name as a type's names (1 to 255 characters), no property asked
 * for; the same counts and size (50 sections of 200 properties, 256 KiB).
 */
export function applyFreeMetadataPatch(current: MetadataSections, patch: unknown): MetadataPatchResult {
  return patchSections(
    current,
    patch,
    (sectionName, propertyName, value) =>
      nameProblem(sectionName, 'section') ?? nameProblem(propertyName, 'property') ?? freeValueProblem(value),
  );
}

export type RetypeResult =
  | { ok: true; sections: MetadataSections; cleared: boolean; dropped: string[] }
  | { ok: false; errors: FieldError[] };

/**
 * An object's sections when a PATCH sets its metadataTypeId from `before` to `after`
 * (docs/twins.md, "Free metadata"):
 * - the same type: unchanged;
 * - a type given to an object without one: the sections that fit it (fitToType) are kept; those
 *   that do not are refused, every one named, unless dropUnfitting, which drops them (named in
 *   `dropped`);
 * - another type, or none: cleared, as before free metadata (their values were checked against
 *   the old type).
 * `type` is the new type's definition when `after` names one.
 */
export function retypeSections(
  before: string | null,
  after: string | null,
  sections: MetadataSections,
  type: { properties: readonly MetadataProperty[] } | undefined,
  dropUnfitting: boolean,
): RetypeResult {
  if (after === before) return { ok: true, sections, cleared: false, dropped: [] };
  if (before !== null || after === null || type === undefined) {
    return { ok: true, sections: {}, cleared: Object.keys(sections).length > 0, dropped: [] };
  }
  const { kept, unfitting } = fitToType(type, sections);
  if (unfitting.length > 0 && !dropUnfitting) return { ok: false, errors: unfitting };
  return { ok: true, sections: kept, cleared: false, dropped: unfitting.map((error) => error.path) };
}
