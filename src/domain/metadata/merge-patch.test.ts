import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isJsonObject, type JsonObject, type JsonValue, mergePatch, reverseMergePatch } from './merge-patch.js';

// A few keys, so patches often meet the document's keys (and "__proto__" stays a plain key).
const key = fc.constantFrom('a', 'b', 'c', 'section', '__proto__', 'constructor');
const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.boolean());

/** Documents as metadata holds them: objects, arrays and scalars, never null. */
const { document } = fc.letrec<{ value: JsonValue; document: JsonObject }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(scalar, { maxLength: 3 }), tie('document')),
  document: fc.dictionary(key, tie('value'), { maxKeys: 4 }) as fc.Arbitrary<JsonObject>,
}));

/** Patches: the same, plus null (remove) anywhere. */
const { patch } = fc.letrec<{ value: JsonValue; patch: JsonObject }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.constant(null), fc.array(scalar, { maxLength: 3 }), tie('patch')),
  patch: fc.dictionary(key, tie('value'), { maxKeys: 4 }) as fc.Arbitrary<JsonObject>,
}));

describe('JSON Merge Patch (RFC 7396)', () => {
  it('gives back the original when a patch is followed by its reverse', () => {
    fc.assert(
      fc.property(document, patch, (original, change) => {
        const changed = mergePatch(original, change);
        expect(isJsonObject(changed)).toBe(true);
        expect(mergePatch(changed, reverseMergePatch(original, change))).toEqual(original);
      }),
    );
  });

  it('removes a key patched with null, and leaves the other keys as they were', () => {
    fc.assert(
      fc.property(document, key, (original, removed) => {
        const changed = mergePatch(original, { [removed]: null }) as JsonObject;
        expect(Object.hasOwn(changed, removed)).toBe(false);
        for (const [name, value] of Object.entries(original)) if (name !== removed) expect(changed[name]).toEqual(value);
      }),
    );
  });

  it('merges nested objects key by key and replaces anything else whole', () => {
    fc.assert(
      fc.property(document, document, key, (inner, innerPatch, name) => {
        const changed = mergePatch({ [name]: inner }, { [name]: innerPatch }) as JsonObject;
        expect(changed[name]).toEqual(mergePatch(inner, innerPatch));
        for (const [field, value] of Object.entries(inner)) {
          if (!Object.hasOwn(innerPatch, field)) expect((changed[name] as JsonObject)[field]).toEqual(value);
        }
      }),
    );
  });

  it('is idempotent: applying a patch twice changes nothing more', () => {
    fc.assert(
      fc.property(document, patch, (original, change) => {
        const once = mergePatch(original, change);
        expect(mergePatch(once, change)).toEqual(once);
      }),
    );
  });

  it("follows the RFC's examples", () => {
    // RFC 7396, appendix A, a selection.
    expect(mergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'b' }, { b: 'c' })).toEqual({ a: 'b', b: 'c' });
    expect(mergePatch({ a: 'b' }, { a: null })).toEqual({});
    expect(mergePatch({ a: 'b', b: 'c' }, { a: null })).toEqual({ b: 'c' });
    expect(mergePatch({ a: ['b'] }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'c' }, { a: ['b'] })).toEqual({ a: ['b'] });
    expect(mergePatch({ a: { b: 'c' } }, { a: { b: 'd', c: null } })).toEqual({ a: { b: 'd' } });
    expect(mergePatch({ a: [{ b: 'c' }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch({ e: null } as unknown as JsonObject, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(mergePatch([1, 2], { a: 'b', c: null })).toEqual({ a: 'b' });
    expect(mergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });

  it('keeps "__proto__" an ordinary key and never touches a prototype', () => {
    const patched = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as JsonObject;
    expect(Object.hasOwn(patched, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(patched)).toBe(Object.prototype);
  });
});
