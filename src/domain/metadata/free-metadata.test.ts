import { describe, expect, it } from 'vitest';
import { applyFreeMetadataPatch, retypeSections } from './free-metadata.js';
import type { MetadataProperty } from './metadata-types.js';
import { ATTACHMENT_VALUE_TYPE, fitToType, LINK_VALUE_TYPE, type MetadataSections } from './metadata-values.js';

const link = { _p3d_type: LINK_VALUE_TYPE, url: 'https://example.com/pump', text: 'Vendor' } as const;
const attachment = { _p3d_type: ATTACHMENT_VALUE_TYPE, id: 'a1', name: 'manual.pdf' } as const;

const property = (section: string, name: string, type: MetadataProperty['type'], extra: Partial<MetadataProperty> = {}) =>
  ({ section, name, type, required: false, ...extra }) as MetadataProperty;

const pump = {
  properties: [
    property('General', 'Height', 'number', { required: true }),
    property('General', 'Label', 'shortText'),
    property('General', 'Grade', 'choice', { choices: ['A', 'B'] }),
    property('Files', 'Manual', 'attachment'),
  ],
};

function failures(patch: unknown, current: MetadataSections = {}) {
  const result = applyFreeMetadataPatch(current, patch);
  return result.ok ? [] : result.errors.map((error) => error.path);
}

describe('applyFreeMetadataPatch', () => {
  it('takes strings, numbers, booleans, links and attachments under any names, merged as a typed patch', () => {
    const result = applyFreeMetadataPatch(
      { Old: { Kept: 1, Gone: 'x' } },
      {
        Old: { Gone: null },
        New: { Text: 't'.repeat(10_000), Count: -2.5, Flag: false, Link: link, File: attachment, Empty: '' },
      },
    );
    expect(result).toEqual({
      ok: true,
      sections: {
        Old: { Kept: 1 },
        New: { Text: 't'.repeat(10_000), Count: -2.5, Flag: false, Link: link, File: attachment, Empty: '' },
      },
    });
    expect(applyFreeMetadataPatch({ A: { b: 1 } }, { A: null })).toEqual({ ok: true, sections: {} });
  });

  it('refuses every other shape, naming each property; a name outside 1 to 255 characters too', () => {
    expect(
      failures({
        S: {
          list: [1],
          object: { a: 1 },
          badLink: { ...link, url: 'ftp://x' },
          moreLink: { ...link, extra: 1 },
          badFile: { _p3d_type: ATTACHMENT_VALUE_TYPE, id: '', name: 'n' },
          long: 'x'.repeat(10_001),
          fine: 1,
        },
      }),
    ).toEqual([
      'sections.S.list',
      'sections.S.object',
      'sections.S.badLink',
      'sections.S.moreLink',
      'sections.S.badFile',
      'sections.S.long',
    ]);
    expect(failures({ S: { '': 1 } })).toEqual(['sections.S.']);
    expect(failures({ ['x'.repeat(256)]: { p: 1 } })).toEqual([`sections.${'x'.repeat(256)}.p`]);
    expect(failures({ S: 5 })).toEqual(['sections.S']);
    expect(failures([])).toEqual(['sections']);
  });

  it('keeps the counts and the size of typed metadata', () => {
    expect(failures(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`S${i}`, { p: 1 }])))).toEqual(['sections']);
    expect(failures({ S: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`p${i}`, 1])) })).toEqual(['sections.S']);
    const big = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`t${i}`, '€'.repeat(10_000)]));
    expect(failures({ S: big })).toEqual(['sections']);
  });
});

describe('fitToType and retypeSections', () => {
  const free: MetadataSections = {
    General: { Height: 2, Label: 'P-1', Grade: 'C', Colour: 'red' },
    Files: { Manual: attachment },
    Other: { Any: true },
  };

  it('keeps what the type declares with a value it takes; names the rest with why', () => {
    const { kept, unfitting } = fitToType(pump, free);
    expect(kept).toEqual({ General: { Height: 2, Label: 'P-1' }, Files: { Manual: attachment } });
    expect(unfitting.map((error) => error.path)).toEqual([
      'sections.General.Grade',
      'sections.General.Colour',
      'sections.Other.Any',
    ]);
    expect(unfitting[0]?.message).toMatch(/one of the choices/);
    expect(unfitting[1]?.message).toMatch(/not a property of the metadata type/);
    // A name such as __proto__ stays an ordinary key.
    const odd = JSON.parse('{"__proto__": {"Height": 1}}') as MetadataSections;
    expect(Object.keys(fitToType({ properties: [property('__proto__', 'Height', 'number')] }, odd).kept)).toEqual(['__proto__']);
  });

  it('a type given to an untyped object: fitting kept, the rest refused or dropped; a required property missing is no refusal', () => {
    expect(retypeSections(null, 't', free, pump, false)).toMatchObject({ ok: false, errors: [{}, {}, {}] });
    expect(retypeSections(null, 't', free, pump, true)).toEqual({
      ok: true,
      sections: { General: { Height: 2, Label: 'P-1' }, Files: { Manual: attachment } },
      cleared: false,
      dropped: ['sections.General.Grade', 'sections.General.Colour', 'sections.Other.Any'],
    });
    expect(retypeSections(null, 't', { General: { Label: 'x' } }, pump, false)).toEqual({
      ok: true,
      sections: { General: { Label: 'x' } },
      cleared: false,
      dropped: [],
    });
  });

  it('the same type keeps the sections; another type or none clears them', () => {
    expect(retypeSections('t', 't', free, pump, false)).toEqual({ ok: true, sections: free, cleared: false, dropped: [] });
    expect(retypeSections('t', 'u', free, pump, false)).toEqual({ ok: true, sections: {}, cleared: true, dropped: [] });
    expect(retypeSections('t', null, free, undefined, false)).toEqual({ ok: true, sections: {}, cleared: true, dropped: [] });
    expect(retypeSections(null, null, free, undefined, false)).toEqual({ ok: true, sections: free, cleared: false, dropped: [] });
  });
});
