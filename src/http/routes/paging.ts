import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { validationError } from '../../domain/errors.js';
import { type CursorKey, decodeCursor, encodeCursor, type ListPage, MAX_CURSOR_LENGTH } from '../../domain/listing/cursor.js';

/** The largest page a list answers: a larger limit is clamped to it. */
export const MAX_PAGE = 500;

/**
 * The largest offset (and limit) a list takes. Query values are coerced to numbers, and "1e20",
 * "Infinity" or twenty nines pass a bare integer check (Ajv counts Infinity as one); the store
 * then failed on a value that is no 64-bit integer (a 500 from SQLite). A billion is past any
 * real list and fits every store's integers.
 */
export const MAX_PAGING_VALUE = 1_000_000_000;

/** The response header that carries the cursor of the next page (docs/api-decisions.md, "Cursors"). */
export const NEXT_CURSOR_HEADER = 'Next-Cursor';

/**
 * limit and offset of every list route, spread into its querystring schema: the one definition
 * of their bounds, so a value out of them is 400 ValidationError naming the field. offset has no
 * schema default (it is 0 when absent): a filled-in 0 could not be told from one the caller sent
 * beside a cursor.
 */
export const Paging = {
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGING_VALUE,
      default: 100,
      description: `Page size; values above ${MAX_PAGE} are clamped to ${MAX_PAGE}`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_PAGING_VALUE, description: 'How many items to skip; default 0' }),
  ),
};

/** Paging of the long lists: offset, or a cursor from the Next-Cursor header of the page before. */
export const CursorPaging = {
  ...Paging,
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: MAX_CURSOR_LENGTH,
      description: `Continue after the page that answered this value in its ${NEXT_CURSOR_HEADER} header (a full page carries one). Not with offset; only with the filters of that first request.`,
    }),
  ),
};

export function clampLimit(limit: number | undefined): number {
  return Math.min(limit ?? 100, MAX_PAGE);
}

/**
 * A list that pages by cursor: its name and the sort key of a row. The scope of each request (the
 * organization, caller and filters) binds a cursor to the list it came from.
 */
export interface CursorList<Row> {
  name: string;
  keyLength: number;
  keyOf(row: Row): CursorKey;
}

export function pagePosition<Row>(
  list: CursorList<Row>,
  scope: readonly string[],
  query: { limit?: number; offset?: number; cursor?: string },
): ListPage {
  if (query.cursor !== undefined && query.offset !== undefined) {
    throw validationError('querystring.cursor: cannot be combined with offset');
  }
  return {
    limit: clampLimit(query.limit),
    offset: query.offset ?? 0,
    after: query.cursor === undefined ? undefined : decodeCursor(query.cursor, list.name, scope, list.keyLength),
  };
}

/**
 * Sets Next-Cursor on a full page (a shorter one is the last): the cursor after its last row.
 * A full page whose list ends with it answers one too; the page it leads to is empty.
 */
export function setNextCursor<Row>(
  reply: FastifyReply,
  list: CursorList<Row>,
  scope: readonly string[],
  position: ListPage,
  rows: readonly Row[],
): void {
  const last = rows.length > 0 && rows.length >= position.limit ? rows[rows.length - 1] : undefined;
  if (last !== undefined) reply.header(NEXT_CURSOR_HEADER, encodeCursor(list.name, scope, list.keyOf(last)));
}
