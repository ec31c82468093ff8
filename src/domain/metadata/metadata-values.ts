import { isJsonObject, type JsonObject, type JsonValue, mergePatch } from './merge-patch.js';
import { codePointLength, type FieldError, METADATA_TYPE_LIMITS, type MetadataProperty } from './metadata-types.js';

/**
 * An object's metadata (docs/design/metadata.md#object-metadata): `sections: {"<section>":
 * {"<property>": value}}`, changed by JSON Merge Patch and checked against the object's metadata
 * type. No I/O.
 */

export const ATTACHMENT_VALUE_TYPE = 'urn:primitive:obj:attachment';
export const LINK_VALUE_TYPE = 'urn:primitive:obj:external-link';

export const METADATA_VALUE_LIMITS = {
  shortText: 255,
  longText: 10_000,
  attachmentId: 64,
  attachmentName: 255,
  linkUrl: 2048,
  linkText: 255,
  /** The sections as JSON, in UTF-8 bytes. */
  bytes: 256 * 1024,
} as const;

export interface AttachmentValue {
  _p3d_type: typeof ATTACHMENT_VALUE_TYPE;
  id: string;
  name: string;
}

export interface LinkValue {
  _p3d_type: typeof LINK_VALUE_TYPE;
  url: string;
  text: string;
}

export type MetadataValue = string | number | boolean | AttachmentValue | LinkValue;
export type MetadataSections = Record<string, Record<string, MetadataValue>>;

export type MetadataPatchResult = { ok: true; sections: MetadataSections } | { ok: false; errors: FieldError[] };

/** The type's properties by section, then by name. */
type PropertyIndex = Map<string, Map<string, MetadataProperty>>;

function indexProperties(properties: readonly MetadataProperty[]): PropertyIndex {
  const index: PropertyIndex = new Map();
  for (const property of properties) {
    const section = index.get(property.section) ?? new Map<string, MetadataProperty>();
    section.set(property.name, property);
    index.set(property.section, section);
  }
  return index;
}

/** Exactly these keys: value objects take no extra fields, like every body. */
function hasExactKeys(value: JsonObject, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function isText(value: unknown, min: number, max: number): value is string {
  if (typeof value !== 'string') return false;
  const length = codePointLength(value);
  return length >= min && length <= max;
}

function isHttpUrl(value: unknown): boolean {
  if (!isText(value, 1, METADATA_VALUE_LIMITS.linkUrl)) return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/** Why a value does not fit its property, or undefined when it does. */
export function valueProblem(property: MetadataProperty, value: JsonValue): string | undefined {
  const limits = METADATA_VALUE_LIMITS;
  switch (property.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a finite number';
    case 'shortText':
      return isText(value, 0, limits.shortText) ? undefined : `must be a string of at most ${limits.shortText} characters`;
    case 'longText':
      return isText(value, 0, limits.longText) ? undefined : `must be a string of at most ${limits.longText} characters`;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'choice':
      return typeof value === 'string' && (property.choices ?? []).includes(value)
        ? undefined
        : `must be one of the choices: ${(property.choices ?? []).map((choice) => JSON.stringify(choice)).join(', ')}`;
    case 'attachment':
      return isJsonObject(value) &&
        hasExactKeys(value, ['_p3d_type', 'id', 'name']) &&
        value._p3d_type === ATTACHMENT_VALUE_TYPE &&
        isText(value.id, 1, limits.attachmentId) &&
        isText(value.name, 1, limits.attachmentName)
        ? undefined
        : `must be {"_p3d_type": "${ATTACHMENT_VALUE_TYPE}", "id" (1 to ${limits.attachmentId} characters), "name" (1 to ${limits.attachmentName})}`;
    case 'link':
      return isJsonObject(value) &&
        hasExactKeys(value, ['_p3d_type', 'url', 'text']) &&
        value._p3d_type === LINK_VALUE_TYPE &&
        isHttpUrl(value.url) &&
        isText(value.text, 0, limits.linkText)
        ? undefined
        : `must be {"_p3d_type": "${LINK_VALUE_TYPE}", "url" (http or https, at most ${limits.linkUrl} characters), "text" (at most ${limits.linkText})}`;
  }
}

/** The patch's own shape: an object whose sections are objects (merged) or null (removed). */
function checkPatchShape(patch: unknown): FieldError[] {
  if (!isJsonObject(patch)) return [{ path: 'sections', message: 'must be an object of sections' }];
  return Object.entries(patch)
    .filter(([, section]) => section !== null && !isJsonObject(section))
    .map(([name]) => ({ path: `sections.${name}`, message: 'must be an object of properties, or null to remove the section' }));
}

/** Why one property's value is refused, or undefined when it is taken: the typed or the free rule. */
export type PropertyCheck = (sectionName: string, propertyName: string, value: JsonValue) => string | undefined;

/** The merged sections: each property by `check`, the counts. */
function checkSections(sections: JsonObject, check: PropertyCheck): FieldError[] {
  const errors: FieldError[] = [];
  const names = Object.keys(sections);
  if (names.length > METADATA_TYPE_LIMITS.sections) {
    errors.push({ path: 'sections', message: `at most ${METADATA_TYPE_LIMITS.sections} sections` });
  }
  for (const sectionName of names) {
    const section = sections[sectionName];
    if (!isJsonObject(section)) {
      errors.push({ path: `sections.${sectionName}`, message: 'must be an object of properties' });
      continue;
    }
    const propertyNames = Object.keys(section);
    if (propertyNames.length > METADATA_TYPE_LIMITS.propertiesPerSection) {
      errors.push({
        path: `sections.${sectionName}`,
        message: `at most ${METADATA_TYPE_LIMITS.propertiesPerSection} properties in a section`,
      });
    }
    for (const propertyName of propertyNames) {
      const problem = check(sectionName, propertyName, section[propertyName] as JsonValue);
      if (problem !== undefined) errors.push({ path: `sections.${sectionName}.${propertyName}`, message: problem });
    }
  }
  return errors;
}

/** The type's rule for one property: one of its properties, with a value that fits it. */
function typedCheck(index: PropertyIndex): PropertyCheck {
  return (sectionName, propertyName, value) => {
    const property = index.get(sectionName)?.get(propertyName);
    return property ? valueProblem(property, value) : 'is not a property of the metadata type';
  };
}

/**
 * The merge patch applied to the current sections and the result checked: the patch's shape,
 * every property by `check`, then `more` (required properties), then the counts and the size.
 * A section left empty is dropped.
 */
export function patchSections(
  current: MetadataSections,
  patch: unknown,
  check: PropertyCheck,
  more: (sections: JsonObject) => FieldError[] = () => [],
): MetadataPatchResult {
  const shapeErrors = checkPatchShape(patch);
  if (shapeErrors.length > 0) return { ok: false, errors: shapeErrors };
  const merged = mergePatch(current as unknown as JsonObject, patch as JsonObject) as JsonObject;
  const sections = Object.fromEntries(
    Object.entries(merged).filter(([, section]) => !isJsonObject(section) || Object.keys(section).length > 0),
  );
  const errors = [...checkSections(sections, check), ...more(sections)];
  if (errors.length === 0 && new TextEncoder().encode(JSON.stringify(sections)).length > METADATA_VALUE_LIMITS.bytes) {
    errors.push({ path: 'sections', message: `must be at most ${METADATA_VALUE_LIMITS.bytes / 1024} KiB as JSON` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, sections: sections as MetadataSections };
}

/**
 * Applies a JSON Merge Patch (RFC 7396; null removes a property or a whole section) to an
 * object's current sections and checks the result against its metadata type: every property is
 * one of the type's, every value fits its property, every required property is present, at most
 * 50 sections of at most 200 properties, at most 256 KiB as JSON. A section left empty is dropped.
 * Returns the new sections, or every failure with its path ("sections.<section>.<property>").
 *
 * Attachment values are checked for their shape only: that the attachment exists, is finalized
 * and belongs to the same context is the caller's check (it needs the store); see
 * attachmentReferences.
 */
export function applyMetadataPatch(
  type: { properties: readonly MetadataProperty[] },
  current: MetadataSections,
  patch: unknown,
): MetadataPatchResult {
  return patchSections(current, patch, typedCheck(indexProperties(type.properties)), (sections) =>
    type.properties
      .filter((property) => {
        const section = sections[property.section];
        return property.required && !(isJsonObject(section) && Object.hasOwn(section, property.name));
      })
      .map((property) => ({
        path: `sections.${property.section}.${property.name}`,
        message: 'is required by the metadata type',
      })),
  );
}

/**
 * The sections split by whether they fit the type (docs/twins.md, "Free metadata"): a property
 * fits when the type declares it (same section and name) and its value is one the property takes;
 * anything else does not, named with why. Required properties the sections lack are not asked
 * for here: the next metadata PATCH asks for them, as for any object given a type.
 */
export function fitToType(
  type: { properties: readonly MetadataProperty[] },
  sections: MetadataSections,
): { kept: MetadataSections; unfitting: FieldError[] } {
  const check = typedCheck(indexProperties(type.properties));
  const kept: [string, Record<string, MetadataValue>][] = [];
  const unfitting: FieldError[] = [];
  for (const [sectionName, section] of Object.entries(sections)) {
    const fitting = Object.entries(section).filter(([propertyName, value]) => {
      const problem = check(sectionName, propertyName, value as JsonValue);
      if (problem !== undefined) unfitting.push({ path: `sections.${sectionName}.${propertyName}`, message: problem });
      return problem === undefined;
    });
    // Built with Object.fromEntries, so a name such as "__proto__" stays an ordinary key (merge-patch.ts).
    if (fitting.length > 0) kept.push([sectionName, Object.fromEntries(fitting)]);
  }
  return { kept: Object.fromEntries(kept), unfitting };
}

/** The attachments the sections name, with where: for the caller's check that each exists on the context. */
export function attachmentReferences(sections: MetadataSections): { path: string; id: string }[] {
  return Object.entries(sections).flatMap(([sectionName, section]) =>
    Object.entries(section).flatMap(([propertyName, value]) =>
      isJsonObject(value) && value._p3d_type === ATTACHMENT_VALUE_TYPE
        ? [{ path: `sections.${sectionName}.${propertyName}`, id: (value as AttachmentValue).id }]
        : [],
    ),
  );
}
