import { describe, expect, it } from 'vitest';
import { checkMetadataType, type MetadataProperty } from './metadata-types.js';

const height: MetadataProperty = { section: 'Dimensions', name: 'Height', type: 'number', unit: 'm', required: true };
const state: MetadataProperty = {
  section: 'State',
  name: 'Condition',
  type: 'choice',
  choices: ['good', 'poor'],
  required: false,
};
const valid = { name: 'Pump', appliesTo: ['asset', 'zone'], properties: [height, state] };

const paths = (body: unknown) => checkMetadataType(body).map((error) => error.path);

describe('checkMetadataType', () => {
  it('accepts a valid type, and one without properties', () => {
    expect(checkMetadataType(valid)).toEqual([]);
    expect(checkMetadataType({ ...valid, properties: [] })).toEqual([]);
    for (const type of ['shortText', 'longText', 'boolean', 'attachment', 'link'] as const) {
      expect(checkMetadataType({ ...valid, properties: [{ section: 'S', name: 'P', type, required: false }] })).toEqual([]);
    }
  });

  it('counts names in code points, 1 to 255, never trimmed', () => {
    expect(paths({ ...valid, name: '🏗'.repeat(255) })).toEqual([]);
    expect(paths({ ...valid, name: ' padded ' })).toEqual([]);
    expect(paths({ ...valid, name: '🏗'.repeat(256) })).toEqual(['name']);
    expect(paths({ ...valid, name: '' })).toEqual(['name']);
    expect(paths({ ...valid, properties: [{ ...height, section: '' }] })).toEqual(['properties.0.section']);
    expect(paths({ ...valid, properties: [{ ...height, name: 'x'.repeat(256) }] })).toEqual(['properties.0.name']);
  });

  it('needs appliesTo to be a non-empty list of distinct known kinds', () => {
    expect(paths({ ...valid, appliesTo: [] })).toEqual(['appliesTo']);
    expect(paths({ ...valid, appliesTo: ['asset', 'asset'] })).toEqual(['appliesTo.1']);
    expect(paths({ ...valid, appliesTo: ['asset', 'building'] })).toEqual(['appliesTo.1']);
    expect(paths({ ...valid, appliesTo: 'asset' })).toEqual(['appliesTo']);
  });

  it('gives a unit to number properties only, of 1 to 32 characters', () => {
    expect(paths({ ...valid, properties: [{ ...height, type: 'shortText' }] })).toEqual(['properties.0.unit']);
    expect(paths({ ...valid, properties: [{ ...height, unit: 'u'.repeat(33) }] })).toEqual(['properties.0.unit']);
    expect(paths({ ...valid, properties: [{ ...height, unit: '' }] })).toEqual(['properties.0.unit']);
  });

  it('needs choices exactly on choice properties: 1 to 100 distinct strings of 1 to 255', () => {
    const { choices: _, ...withoutChoices } = state;
    expect(paths({ ...valid, properties: [withoutChoices] })).toEqual(['properties.0.choices']);
    expect(paths({ ...valid, properties: [{ ...height, choices: ['a'] }] })).toEqual(['properties.0.choices']);
    expect(paths({ ...valid, properties: [{ ...state, choices: [] }] })).toEqual(['properties.0.choices']);
    expect(paths({ ...valid, properties: [{ ...state, choices: ['a', 'b', 'a'] }] })).toEqual(['properties.0.choices.2']);
    expect(paths({ ...valid, properties: [{ ...state, choices: ['a', ''] }] })).toEqual(['properties.0.choices.1']);
    const many = Array.from({ length: 101 }, (_, index) => `c${index}`);
    expect(paths({ ...valid, properties: [{ ...state, choices: many }] })).toEqual(['properties.0.choices']);
    expect(paths({ ...valid, properties: [{ ...state, choices: many.slice(0, 100) }] })).toEqual([]);
  });

  it('names each property once per section; the same name in another section is another property', () => {
    const again = { ...height, type: 'boolean' as const, unit: undefined };
    expect(paths({ ...valid, properties: [height, state, again] })).toEqual(['properties.2.name']);
    expect(paths({ ...valid, properties: [height, { ...height, section: 'Other' }] })).toEqual([]);
  });

  it('allows at most 50 sections and 200 properties in each', () => {
    const sections = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ section: `S${index}`, name: 'P', type: 'boolean', required: false }));
    expect(paths({ ...valid, properties: sections(50) })).toEqual([]);
    expect(paths({ ...valid, properties: sections(51) })).toEqual(['properties.50.section']);
    const inOne = (count: number) =>
      Array.from({ length: count }, (_, index) => ({ section: 'S', name: `P${index}`, type: 'boolean', required: false }));
    expect(paths({ ...valid, properties: inOne(200) })).toEqual([]);
    expect(paths({ ...valid, properties: inOne(201) })).toEqual(['properties.200']);
  });

  it('refuses unknown fields, unknown types and a missing required flag', () => {
    expect(paths({ ...valid, extra: 1 })).toEqual(['']);
    expect(paths({ ...valid, properties: [{ ...height, hint: 'x' }] })).toEqual(['properties.0']);
    expect(paths({ ...valid, properties: [{ ...height, type: 'date', unit: undefined }] })).toEqual(['properties.0.type']);
    const { required: _, ...optional } = height;
    expect(paths({ ...valid, properties: [optional] })).toEqual(['properties.0.required']);
    expect(paths(null)).toEqual(['']);
  });
});
