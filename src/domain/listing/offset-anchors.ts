import type { CursorKey } from './cursor.js';

/**
 * Where a list's rows stood by offset, remembered so that a deep offset page starts from a sort
 * key instead of skipping every row before it (docs/performance.md, "Lists at depth"). An anchor
 * says: at one version of the list, the row at `position` (0-based) has the sort key `key`. Sort
 * keys end in the row's id, so they are unique, and the rows from that position on are exactly
 * the rows whose key is not before `key`. Anchors are only true at the version they were read at:
 * the store keeps that apart.
 */
export interface OffsetAnchor {
  position: number;
  key: CursorKey;
}

/** Anchors kept per list and filter; past it the closest pair loses one, so they stay spread out. */
export const MAX_ANCHORS = 64;

/** The anchor nearest before the offset (or at it), from anchors sorted by position. */
export function anchorBefore(anchors: readonly OffsetAnchor[], offset: number): OffsetAnchor | undefined {
  let low = 0;
  let high = anchors.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((anchors[middle] as OffsetAnchor).position <= offset) low = middle + 1;
    else high = middle;
  }
  return low > 0 ? anchors[low - 1] : undefined;
}

/**
 * The anchors with a page's first and last rows added (the page starting `offset` rows in), sorted
 * by position, at most MAX_ANCHORS: the first row lets the same page be read again from its key,
 * the last the page after it. When there are too many, the anchor closest to the one before it
 * goes (never the new ones), until they fit.
 */
export function withPageAnchors(
  anchors: readonly OffsetAnchor[],
  offset: number,
  first: CursorKey,
  last: CursorKey,
  rows: number,
): OffsetAnchor[] {
  const added: OffsetAnchor[] = [{ position: offset, key: first }];
  if (rows > 1) added.push({ position: offset + rows - 1, key: last });
  const kept = anchors.filter((anchor) => !added.some((page) => page.position === anchor.position));
  const merged = [...kept, ...added].sort((a, b) => a.position - b.position);
  while (merged.length > MAX_ANCHORS) {
    let closest = -1;
    for (let i = 1; i < merged.length; i += 1) {
      const anchor = merged[i] as OffsetAnchor;
      if (added.includes(anchor)) continue;
      const gap = anchor.position - (merged[i - 1] as OffsetAnchor).position;
      if (closest < 0 || gap < (merged[closest] as OffsetAnchor).position - (merged[closest - 1] as OffsetAnchor).position) {
        closest = i;
      }
    }
    merged.splice(Math.max(closest, 0), 1);
  }
  return merged;
}
