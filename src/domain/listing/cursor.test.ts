import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { decodeCursor, encodeCursor } from './cursor.js';

describe('list cursors', () => {
  it('decode to the key they were made from, for the same list and scope', () => {
    const cursor = encodeCursor('trash', ['org', 'user'], ['2026-01-01T00:00:00.000Z', 'id-1']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 'trash', ['org', 'user'], 2)).toEqual(['2026-01-01T00:00:00.000Z', 'id-1']);
  });

  it('refuse another list or scope, a wrong key length, and what is no cursor', () => {
    const cursor = encodeCursor('trash', ['org', 'user'], ['a', 'b']);
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(ApiError);
        return (error as ApiError).message;
      }
      throw new Error('not refused');
    };
    expect(refusal(() => decodeCursor(cursor, 'browse', ['org', 'user'], 2))).toMatch(/belongs to another/);
    expect(refusal(() => decodeCursor(cursor, 'trash', ['org', 'other'], 2))).toMatch(/belongs to another/);
    // Scopes are told apart by their parts, not their concatenation.
    expect(refusal(() => decodeCursor(cursor, 'trash', ['orgu', 'ser'], 2))).toMatch(/belongs to another/);
    for (const bad of ['', '!!', 'e30', Buffer.from('{"s":"x","k":["a",1]}').toString('base64url')]) {
      expect(refusal(() => decodeCursor(bad, 'trash', ['org', 'user'], 2))).toMatch(/is not a cursor/);
    }
    expect(refusal(() => decodeCursor(cursor, 'trash', ['org', 'user'], 3))).toMatch(/is not a cursor/);
  });
});
