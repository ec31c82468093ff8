import { isAttachmentValue, isLinkValue, type MetadataValue } from './metadata-values.js';
import type { ObjectMetadata } from './twin-api.js';

/**
 * Free metadata as the panel edits it (docs/twins.md, "Free metadata"): an object without a
 * metadata type holds any sections of properties, each value text, a number, yes or no, a link or
 * an attachment. No I/O here: the form's state, and the merge patch that takes the stored sections to it.
 */
export type FreeKind = 'string' | 'number' | 'boolean' | 'link' | 'attachment';
export interface FreeProperty {
  name: string;
  kind: FreeKind;
  value: MetadataValue | null;
}
export interface FreeSection {
  name: string;
  properties: FreeProperty[];
}
type Sections = ObjectMetadata['sections'];
export type SectionsPatch = Record<string, Record<string, MetadataValue | null> | null>;

/** A free string's bound, a longText's (docs/twins.md, "Free metadata"). */
export const FREE_TEXT_LENGTH = 10_000;

export const FREE_KINDS: [FreeKind, string][] = [
  ['string', 'Text'],
  ['number', 'Number'],
  ['boolean', 'Yes or no'],
  ['link', 'Link'],
  ['attachment', 'Attachment'],
];

/** The input each free kind is edited with (a type's property kinds, see PropertyInput): text on one line. */
export const INPUT_OF_KIND = {
  string: 'shortText',
  number: 'number',
  boolean: 'boolean',
  link: 'link',
  attachment: 'attachment',
} as const;

export function kindOfValue(value: MetadataValue): FreeKind {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (isLinkValue(value)) return 'link';
  if (isAttachmentValue(value)) return 'attachment';
  return 'string';
}

export function freeSectionsOf(sections: Sections): FreeSection[] {
  return Object.entries(sections).map(([name, properties]) => ({
    name,
    properties: Object.entries(properties).map(([property, value]) => ({ name: property, kind: kindOfValue(value), value })),
  }));
}

/** What is wrong with the form before anything is sent: names missing or given twice. */
export function freeSectionsProblem(sections: FreeSection[]): string | undefined {
  const seen = new Set<string>();
  for (const [index, section] of sections.entries()) {
    if (section.name === '') return `Section ${index + 1} needs a name.`;
    if (seen.has(section.name)) return `Two sections are named ${section.name}.`;
    seen.add(section.name);
    const names = new Set<string>();
    for (const [at, property] of section.properties.entries()) {
      if (property.name === '') return `Property ${at + 1} of ${section.name} needs a name.`;
      if (names.has(property.name)) return `Two properties of ${section.name} are named ${property.name}.`;
      names.add(property.name);
    }
  }
  return undefined;
}

/**
 * The JSON Merge Patch (RFC 7396) from the stored sections to the form's: a section gone (or
 * renamed) is null, a property gone (or renamed, or left without a value) is null, the rest is
 * sent as it is now. A section left without values is dropped by the platform.
 */
export function freeSectionsPatch(before: Sections, after: FreeSection[]): SectionsPatch {
  const patch: SectionsPatch = {};
  const kept = new Set(after.map((section) => section.name));
  for (const name of Object.keys(before)) if (!kept.has(name)) patch[name] = null;
  for (const section of after) {
    const properties: Record<string, MetadataValue | null> = {};
    for (const name of Object.keys(before[section.name] ?? {})) properties[name] = null;
    for (const property of section.properties) if (property.value !== null) properties[property.name] = property.value;
    patch[section.name] = properties;
  }
  return patch;
}
