import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MetadataProperty } from './metadata-types.js';
import {
  ATTACHMENT_VALUE_TYPE,
  applyMetadataPatch,
  attachmentReferences,
  LINK_VALUE_TYPE,
  type MetadataSections,
} from './metadata-values.js';

const property = (section: string, name: string, type: MetadataProperty['type'], extra: Partial<MetadataProperty> = {}) =>
  ({ section, name, type, required: false, ...extra }) as MetadataProperty;

const pump = {
  properties: [
    property('Dimensions', 'Height', 'number', { unit: 'm', required: true }),
    property('Dimensions', 'Label', 'shortText'),
    property('Notes', 'Text', 'longText'),
    property('Notes', 'Checked', 'boolean'),
    property('State', 'Condition', 'choice', { choices: ['good', 'poor'] }),
    property('Files', 'Manual', 'attachment'),
    property('Files', 'Vendor', 'link'),
  ],
};
const current: MetadataSections = { Dimensions: { Height: 2.5 } };
const attachment = { _p3d_type: ATTACHMENT_VALUE_TYPE, id: 'a1', name: 'manual.pdf' } as const;
const link = { _p3d_type: LINK_VALUE_TYPE, url: 'https://example.com/pump', text: 'Vendor page' } as const;

function failures(patch: unknown, sections: MetadataSections = current, type = pump) {
  const result = applyMetadataPatch(type, sections, patch);
  return result.ok ? [] : result.errors.map((error) => error.path);
}

describe('applyMetadataPatch', () => {
  it('merges values of every type into the current sections', () => {
    const result = applyMetadataPatch(pump, current, {
      Dimensions: { Label: 'P-101' },
      Notes: { Text: 'x'.repeat(10_000), Checked: false },
      State: { Condition: 'good' },
      Files: { Manual: attachment, Vendor: link },
    });
    expect(result).toEqual({
      ok: true,
      sections: {
        Dimensions: { Height: 2.5, Label: 'P-101' },
        Notes: { Text: 'x'.repeat(10_000), Checked: false },
        State: { Condition: 'good' },
        Files: { Manual: attachment, Vendor: link },
      },
    });
    expect(attachmentReferences(result.ok ? result.sections : {})).toEqual([{ path: 'sections.Files.Manual', id: 'a1' }]);
  });

  it('removes a property or a whole section with null, and drops a section left empty', () => {
    const full: MetadataSections = { Dimensions: { Height: 1, Label: 'L' }, Notes: { Checked: true } };
    expect(applyMetadataPatch(pump, full, { Dimensions: { Label: null } })).toEqual({
      ok: true,
      sections: { Dimensions: { Height: 1 }, Notes: { Checked: true } },
    });
    expect(applyMetadataPatch(pump, full, { Notes: null })).toEqual({ ok: true, sections: { Dimensions: full.Dimensions } });
    expect(applyMetadataPatch(pump, full, { Notes: { Checked: null } })).toEqual({
      ok: true,
      sections: { Dimensions: full.Dimensions },
    });
  });

  it('merges into a link value, then checks the result', () => {
    const withLink: MetadataSections = { ...current, Files: { Vendor: link } };
    expect(applyMetadataPatch(pump, withLink, { Files: { Vendor: { text: 'New' } } })).toEqual({
      ok: true,
      sections: { ...current, Files: { Vendor: { ...link, text: 'New' } } },
    });
    expect(failures({ Files: { Vendor: { text: null } } }, withLink)).toEqual(['sections.Files.Vendor']);
  });

  it('names a property the type lacks', () => {
    expect(failures({ Dimensions: { Width: 3 } })).toEqual(['sections.Dimensions.Width']);
    expect(failures({ Other: { Height: 3 } })).toEqual(['sections.Other.Height']);
  });

  it('checks each value against its type', () => {
    const bad: [string, string, unknown][] = [
      ['Dimensions', 'Height', '2.5'],
      ['Dimensions', 'Label', 'x'.repeat(256)],
      ['Dimensions', 'Label', 3],
      ['Notes', 'Text', 'x'.repeat(10_001)],
      ['Notes', 'Checked', 'true'],
      ['State', 'Condition', 'Good'],
      ['Files', 'Manual', { ...attachment, _p3d_type: LINK_VALUE_TYPE }],
      ['Files', 'Manual', { ...attachment, id: '' }],
      ['Files', 'Manual', { ...attachment, size: 3 }],
      ['Files', 'Manual', 'a1'],
      ['Files', 'Vendor', { ...link, url: 'ftp://example.com/' }],
      ['Files', 'Vendor', { ...link, url: 'javascript:alert(1)' }],
      ['Files', 'Vendor', { ...link, url: `https://example.com/${'p'.repeat(2048)}` }],
      ['Files', 'Vendor', { ...link, text: 't'.repeat(256) }],
      ['Files', 'Vendor', { _p3d_type: LINK_VALUE_TYPE, url: link.url }],
    ];
    for (const [section, name, value] of bad) {
      expect(failures({ [section]: { [name]: value } }), `${section}.${name} = ${JSON.stringify(value)}`).toEqual([
        `sections.${section}.${name}`,
      ]);
    }
    // The bounds themselves are accepted; short text may be empty.
    expect(failures({ Dimensions: { Label: '🏗'.repeat(255) }, Files: { Vendor: { ...link, text: '' } } })).toEqual([]);
    expect(failures({ Dimensions: { Height: -0.5e-300 } })).toEqual([]);
  });

  it('keeps required properties present after the patch', () => {
    expect(failures({ Dimensions: { Height: null } })).toEqual(['sections.Dimensions.Height']);
    expect(failures({ Dimensions: null })).toEqual(['sections.Dimensions.Height']);
    expect(failures({ Notes: { Checked: true } }, {})).toEqual(['sections.Dimensions.Height']);
  });

  it('refuses a patch that is not an object of sections', () => {
    expect(failures(null)).toEqual(['sections']);
    expect(failures([])).toEqual(['sections']);
    expect(failures({ Dimensions: 'tall' })).toEqual(['sections.Dimensions']);
    expect(failures({ Dimensions: ['tall'] })).toEqual(['sections.Dimensions']);
  });

  it('allows at most 50 sections, 200 properties in each and 256 KiB', () => {
    const wide = {
      properties: Array.from({ length: 51 }, (_, index) => property(`S${index}`, 'P', 'boolean')),
    };
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, index) => [`S${index}`, { P: true }]));
    expect(failures(fifty, {}, wide)).toEqual([]);
    expect(failures({ ...fifty, S50: { P: true } }, {}, wide)).toEqual(['sections']);
    const long = {
      properties: Array.from({ length: 201 }, (_, index) => property('S', `P${index}`, 'boolean')),
    };
    const full = Object.fromEntries(Array.from({ length: 201 }, (_, index) => [`P${index}`, true]));
    expect(failures({ S: full }, {}, long)).toEqual(['sections.S']);
    const texts = {
      properties: Array.from({ length: 27 }, (_, index) => property('Notes', `T${index}`, 'longText')),
    };
    const big = Object.fromEntries(Array.from({ length: 27 }, (_, index) => [`T${index}`, 'x'.repeat(10_000)]));
    expect(failures({ Notes: big }, {}, texts)).toEqual(['sections']);
    expect(failures({ Notes: Object.fromEntries(Object.entries(big).slice(0, 26)) }, {}, texts)).toEqual([]);
  });

  it('never changes its arguments', () => {
    const before = structuredClone(current);
    const patch = { Dimensions: { Height: null, Label: 'L' } };
    applyMetadataPatch(pump, current, patch);
    expect(current).toEqual(before);
    expect(patch).toEqual({ Dimensions: { Height: null, Label: 'L' } });
  });

  it('accepts any patch of valid values and answers exactly the merged sections', () => {
    const value = fc.oneof(fc.boolean(), fc.constant(null));
    const flags = {
      properties: ['A', 'B', 'C'].flatMap((section) => ['x', 'y'].map((name) => property(section, name, 'boolean'))),
    };
    const sections = fc.dictionary(fc.constantFrom('A', 'B', 'C'), fc.dictionary(fc.constantFrom('x', 'y'), fc.boolean()));
    const patches = fc.dictionary(
      fc.constantFrom('A', 'B', 'C'),
      fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('x', 'y'), value)),
    );
    fc.assert(
      fc.property(sections, patches, (start, patch) => {
        const result = applyMetadataPatch(flags, start, patch);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        for (const section of ['A', 'B', 'C']) {
          for (const name of ['x', 'y']) {
            const patched = patch[section] === null ? null : patch[section]?.[name];
            const expected = patched === null ? undefined : (patched ?? start[section]?.[name]);
            expect(result.sections[section]?.[name]).toBe(expected);
          }
          if (result.sections[section]) expect(Object.keys(result.sections[section]).length).toBeGreaterThan(0);
        }
      }),
    );
  });
});
