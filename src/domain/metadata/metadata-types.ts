import type { MetadataTypeRow } from '../records/regional.js';
import { TWIN_OBJECT_KINDS } from '../twins/object-kinds.js';
import type { TwinObjectType } from '../twins/twin-objects.js';

/**
 * An organization's metadata types: named, typed property sets that the twin's objects fill in
 * (docs/design/metadata.md#metadata-types; docs/twins.md). No I/O. The HTTP schema states every
 * bound below (it imports them); checkMetadataType applies them all again together with the rules
 * a schema cannot say, so it holds for input from anywhere.
 */

/** The kinds of twin object a type may apply to: every kind (src/domain/twins/object-kinds.ts), in its order. */
export const OBJECT_KINDS = Object.keys(TWIN_OBJECT_KINDS) as readonly TwinObjectType[];
export type ObjectKind = TwinObjectType;

export const PROPERTY_TYPES = ['number', 'shortText', 'longText', 'boolean', 'attachment', 'link', 'choice'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

export const METADATA_TYPE_LIMITS = {
  /** Type names, section names and property names, in code points. */
  nameLength: 255,
  unitLength: 32,
  choices: 100,
  choiceLength: 255,
  sections: 50,
  propertiesPerSection: 200,
} as const;

/** The most properties a type can hold: every section full. */
export const MAX_PROPERTIES = METADATA_TYPE_LIMITS.sections * METADATA_TYPE_LIMITS.propertiesPerSection;

export interface MetadataProperty {
  section: string;
  name: string;
  type: PropertyType;
  /** Only on a number property. */
  unit?: string;
  /** Exactly on a choice property: the values it may take. */
  choices?: string[];
  required: boolean;
}

export interface MetadataTypeDefinition {
  name: string;
  appliesTo: ObjectKind[];
  properties: MetadataProperty[];
}

/** One failed rule: the field's path inside the checked value (e.g. "properties.3.unit") and why. */
export interface FieldError {
  path: string;
  message: string;
}

/** Type names are unique within an organization without regard to case; stored as given, never trimmed. */
export function metadataTypeNameKey(name: string): string {
  return name.toLowerCase();
}

/** Length in code points, as JSON Schema's maxLength counts (an emoji is one). */
export function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length += 1;
  return length;
}

function checkText(errors: FieldError[], path: string, value: unknown, min: number, max: number): void {
  if (typeof value !== 'string') errors.push({ path, message: 'must be a string' });
  else {
    const length = codePointLength(value);
    if (length < min || length > max) errors.push({ path, message: `must be ${min} to ${max} characters long` });
  }
}

function checkAppliesTo(errors: FieldError[], appliesTo: unknown): void {
  if (!Array.isArray(appliesTo) || appliesTo.length === 0 || appliesTo.length > OBJECT_KINDS.length) {
    errors.push({ path: 'appliesTo', message: `must be a non-empty list of distinct kinds from ${OBJECT_KINDS.join(', ')}` });
    return;
  }
  appliesTo.forEach((kind, index) => {
    if (!(OBJECT_KINDS as readonly unknown[]).includes(kind)) {
      errors.push({ path: `appliesTo.${index}`, message: `must be one of ${OBJECT_KINDS.join(', ')}` });
    } else if (appliesTo.indexOf(kind) !== index) {
      errors.push({ path: `appliesTo.${index}`, message: `"${kind}" is listed twice` });
    }
  });
}

const TYPE_FIELDS = new Set(['name', 'appliesTo', 'properties']);
const PROPERTY_FIELDS = new Set(['section', 'name', 'type', 'unit', 'choices', 'required']);

/** One property's own rules: its fields, its unit (numbers only) and its choices (choice only, then required). */
function checkProperty(errors: FieldError[], property: unknown, path: string): void {
  if (typeof property !== 'object' || property === null || Array.isArray(property)) {
    errors.push({ path, message: 'must be an object' });
    return;
  }
  const unknownField = Object.keys(property).find((key) => !PROPERTY_FIELDS.has(key));
  if (unknownField !== undefined) errors.push({ path, message: `unknown property "${unknownField}"` });
  const { section, name, type, unit, choices, required } = property as Record<string, unknown>;
  checkText(errors, `${path}.section`, section, 1, METADATA_TYPE_LIMITS.nameLength);
  checkText(errors, `${path}.name`, name, 1, METADATA_TYPE_LIMITS.nameLength);
  if (typeof required !== 'boolean') errors.push({ path: `${path}.required`, message: 'must be a boolean' });
  if (!(PROPERTY_TYPES as readonly unknown[]).includes(type)) {
    errors.push({ path: `${path}.type`, message: `must be one of ${PROPERTY_TYPES.join(', ')}` });
  }
  if (unit !== undefined) {
    if (type !== 'number') errors.push({ path: `${path}.unit`, message: 'only a number property has a unit' });
    else checkText(errors, `${path}.unit`, unit, 1, METADATA_TYPE_LIMITS.unitLength);
  }
  if (type === 'choice' && choices === undefined) {
    errors.push({ path: `${path}.choices`, message: 'a choice property needs its choices' });
  } else if (choices !== undefined) {
    if (type !== 'choice') errors.push({ path: `${path}.choices`, message: 'only a choice property has choices' });
    else checkChoices(errors, choices, `${path}.choices`);
  }
}

function checkChoices(errors: FieldError[], choices: unknown, path: string): void {
  const { choices: most, choiceLength } = METADATA_TYPE_LIMITS;
  if (!Array.isArray(choices) || choices.length === 0 || choices.length > most) {
    errors.push({ path, message: `must be a list of 1 to ${most} values` });
    return;
  }
  choices.forEach((choice, index) => {
    checkText(errors, `${path}.${index}`, choice, 1, choiceLength);
    if (choices.indexOf(choice) !== index) errors.push({ path: `${path}.${index}`, message: `"${choice}" is listed twice` });
  });
}

/**
 * Sections appear in the order of their first property; a (section, name) pair names one
 * property; at most 50 sections of at most 200 properties each. Errors name the property that
 * breaks the rule.
 */
function checkSections(errors: FieldError[], properties: readonly unknown[]): void {
  const sections = new Map<string, Set<string>>();
  properties.forEach((property, index) => {
    const { section, name } = (property ?? {}) as { section?: unknown; name?: unknown };
    if (typeof section !== 'string' || typeof name !== 'string') return;
    let names = sections.get(section);
    if (!names) {
      if (sections.size === METADATA_TYPE_LIMITS.sections) {
        errors.push({
          path: `properties.${index}.section`,
          message: `a type has at most ${METADATA_TYPE_LIMITS.sections} sections`,
        });
        return;
      }
      names = new Set();
      sections.set(section, names);
    }
    if (names.has(name)) {
      errors.push({ path: `properties.${index}.name`, message: `section "${section}" already has a property "${name}"` });
    } else if (names.size === METADATA_TYPE_LIMITS.propertiesPerSection) {
      errors.push({
        path: `properties.${index}`,
        message: `section "${section}" has more than ${METADATA_TYPE_LIMITS.propertiesPerSection} properties`,
      });
    } else names.add(name);
  });
}

/**
 * Every rule of a metadata type (name, appliesTo, properties): the list of what fails, empty when
 * it holds. Paths are relative to the type ("properties.2.unit"); the caller adds its prefix.
 */
export function checkMetadataType(body: unknown): FieldError[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [{ path: '', message: 'must be an object' }];
  const errors: FieldError[] = [];
  const unknownField = Object.keys(body).find((key) => !TYPE_FIELDS.has(key));
  if (unknownField !== undefined) errors.push({ path: '', message: `unknown property "${unknownField}"` });
  const { name, appliesTo, properties } = body as Record<string, unknown>;
  checkText(errors, 'name', name, 1, METADATA_TYPE_LIMITS.nameLength);
  checkAppliesTo(errors, appliesTo);
  if (!Array.isArray(properties) || properties.length > MAX_PROPERTIES) {
    errors.push({ path: 'properties', message: `must be a list of at most ${MAX_PROPERTIES} properties` });
    return errors;
  }
  properties.forEach((property, index) => {
    checkProperty(errors, property, `properties.${index}`);
  });
  checkSections(errors, properties);
  return errors;
}

/** A property as stored and answered: unit and choices only where they belong, in a fixed key order. */
export function normalizeProperty(property: MetadataProperty): MetadataProperty {
  return {
    section: property.section,
    name: property.name,
    type: property.type,
    ...(property.unit !== undefined ? { unit: property.unit } : {}),
    ...(property.choices !== undefined ? { choices: [...property.choices] } : {}),
    required: property.required,
  };
}

/** A stored type's definition (its JSON columns read back). */
export function definitionOf(row: MetadataTypeRow): MetadataTypeDefinition {
  return {
    name: row.name,
    appliesTo: JSON.parse(row.applies_to) as ObjectKind[],
    properties: JSON.parse(row.properties) as MetadataProperty[],
  };
}
