import { createHash } from 'node:crypto';
import { validationError } from '../errors.js';

/**
 * Keyset pagination: a cursor names the last row a page held, by the values the list is ordered
 * by (its sort key, always ending in the row's id, so it is unique). The next page is the rows
 * after that key, whatever was added, removed or trashed before it in the meantime, which an
 * offset cannot promise, and it costs a page's rows however deep it is.
 *
 * A cursor is opaque to clients: base64url of a small JSON object. It carries a digest of what
 * the list was asked for (the list, organization, caller and filters: its scope), so a cursor of
 * another list, caller or filter is refused instead of silently positioning a different list.
 * It grants nothing: the next page runs the same query with the same access filter, and only
 * starts later in the order.
 */
export type CursorKey = readonly string[];

/** Where a page of a list starts: after a cursor's sort key when there is one, else `offset` rows in. */
export interface ListPage {
  limit: number;
  offset: number;
  after?: CursorKey | undefined;
}

/** Longer cursors are refused by the query schema; a key value is at most what a sort column holds. */
export const MAX_CURSOR_LENGTH = 2048;
const MAX_KEY_VALUE = 1024;

interface CursorBody {
  /** Digest of the list and its scope. */
  s: string;
  /** The sort key of the last row of the page. */
  k: string[];
}

function scopeDigest(list: string, scope: readonly string[]): string {
  const hash = createHash('sha256').update(list);
  for (const part of scope) hash.update('\u0000').update(part);
  return hash.digest('base64url').slice(0, 22);
}

export function encodeCursor(list: string, scope: readonly string[], key: CursorKey): string {
  const body: CursorBody = { s: scopeDigest(list, scope), k: [...key] };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/**
 * The sort key a cursor carries, checked against the list and scope it must belong to and the
 * key's length; 400 ValidationError naming the cursor when it is malformed or belongs elsewhere.
 */
export function decodeCursor(raw: string, list: string, scope: readonly string[], keyLength: number): CursorKey {
  const invalid = () => validationError('querystring.cursor: is not a cursor this list returned');
  let body: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw invalid();
    body = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { s, k } = (body ?? {}) as Partial<CursorBody>;
  if (
    typeof s !== 'string' ||
    !Array.isArray(k) ||
    k.length !== keyLength ||
    !k.every((value) => typeof value === 'string' && value.length <= MAX_KEY_VALUE)
  ) {
    throw invalid();
  }
  if (s !== scopeDigest(list, scope)) {
    throw validationError('querystring.cursor: belongs to another list, caller or filter; start again without it');
  }
  return k;
}
