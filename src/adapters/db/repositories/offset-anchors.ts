import { type AliasedRawBuilder, sql } from 'kysely';
import type { CursorKey } from '../../../domain/listing/cursor.js';
import { anchorBefore, type OffsetAnchor, withPageAnchors } from '../../../domain/listing/offset-anchors.js';

/** A row read with its list's version, in the same statement (so from the same snapshot). */
export type Versioned<Row> = Row & { list_version: number | string | bigint };

/**
 * The version of a list (list_versions, regional-0033 and global-0015): raised by triggers in
 * every transaction that changes a row the list orders or filters by, whoever writes it. 0 while
 * it never changed.
 */
export function listVersion(listKey: string): AliasedRawBuilder<number | string, 'list_version'> {
  return versionOf(listKey).as('list_version');
}

function versionOf(listKey: string) {
  return sql<number | string>`coalesce((SELECT lv.version FROM list_versions lv WHERE lv.list_key = ${listKey}), 0)`;
}

/**
 * The condition of a read from an anchor: the list is still at the anchor's version. It reads no
 * row, so both stores test it once before the scan (SQLite a constant term, PostgreSQL a one-time
 * filter): a read from a stale anchor costs a probe of list_versions, not a page.
 */
export function atListVersion(listKey: string, version: number) {
  return sql<boolean>`${versionOf(listKey)} = ${version}`;
}

/** `(columns) op (key)`: a bound on a list's sort key, which both stores read as a range of the list's index. */
export function keyBound(columns: readonly string[], op: '>' | '>=' | '<' | '<=', key: CursorKey) {
  return sql<boolean>`(${sql.join(columns.map((column) => sql.ref(column)))}) ${sql.raw(op)} (${sql.join([...key])})`;
}

/** Where a read from an anchor starts: the rows whose sort key is not before `key`, if the list is still at `version`. */
export interface AnchorStart {
  key: CursorKey;
  version: number;
}

/**
 * Reads the page `skip` rows on from `from` (atListVersion(from.version) among its conditions),
 * or, without `from`, `skip` rows in from the start: each row with its list's version.
 */
export type AnchoredRead<Row> = (from: AnchorStart | undefined, skip: number) => Promise<Versioned<Row>[]>;

interface Anchors {
  version: number;
  anchors: OffsetAnchor[];
}

/**
 * Deep offset pages of the lists of people, exact and about as cheap as a first page when the
 * list has not changed (docs/performance.md, "Lists at depth"). Each page read by offset leaves
 * the sort keys of its first and last rows as anchors, with the list's version read in the same
 * statement. A later offset starts from the nearest anchor before it by its key (an index range)
 * and skips only the rows between, in a statement that answers rows only while the list is at the
 * anchors' version, i.e. nothing the list orders or filters by has changed since: otherwise the
 * page is read again by plain offset, and its anchors replace the old ones. So a page by offset
 * is always the rows a plain OFFSET gives at that moment.
 */
export class OffsetAnchors {
  private readonly lists = new Map<string, Anchors>();
  /**
   * Pages read from an anchor; read by plain offset; and reads from an anchor that answered no row
   * (the list had changed since, or the page lies past its end).
   */
  readonly counts = { anchored: 0, walked: 0, refused: 0 };

  constructor(private readonly maxLists = 1_000) {}

  /**
   * The page `offset` rows into the list named by `scope` (the list, its organization or node and
   * its filters: anchors of one filter say nothing about another).
   */
  async page<Row>(scope: readonly string[], offset: number, keyOf: (row: Row) => CursorKey, read: AnchoredRead<Row>) {
    const name = scope.join('\u0000');
    const known = this.lists.get(name);
    const anchor = known && anchorBefore(known.anchors, offset);
    if (known && anchor) {
      const rows = await read({ key: anchor.key, version: known.version }, offset - anchor.position);
      // None: the list changed since (or the page is past its end); the plain read below decides.
      if (rows.length > 0 && Number((rows[0] as Versioned<Row>).list_version) === known.version) {
        this.counts.anchored += 1;
        this.remember(name, offset, rows, keyOf);
        return withoutVersion(rows);
      }
      this.counts.refused += 1;
    }
    this.counts.walked += 1;
    const rows = await read(undefined, offset);
    this.remember(name, offset, rows, keyOf);
    return withoutVersion(rows);
  }

  private remember<Row>(name: string, offset: number, rows: readonly Versioned<Row>[], keyOf: (row: Row) => CursorKey) {
    const first = rows[0];
    const last = rows[rows.length - 1];
    if (first === undefined || last === undefined) return;
    const version = Number(first.list_version);
    let known = this.lists.get(name);
    // A read from an older snapshot than the anchors (a slower request) teaches nothing.
    if (known && version < known.version) return;
    if (!known || version > known.version) {
      if (!known && this.lists.size >= this.maxLists) this.lists.clear();
      known = { version, anchors: [] };
      this.lists.set(name, known);
    }
    known.anchors = withPageAnchors(known.anchors, offset, keyOf(first), keyOf(last), rows.length);
  }
}

/** The rows without the version read beside them. */
export function withoutVersion<Row>(rows: readonly Versioned<Row>[]): Row[] {
  return rows.map(({ list_version: _version, ...row }) => row as Row);
}
