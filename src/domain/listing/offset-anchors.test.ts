import { describe, expect, it } from 'vitest';
import { anchorBefore, MAX_ANCHORS, type OffsetAnchor, withPageAnchors } from './offset-anchors.js';

const at = (position: number): OffsetAnchor => ({ position, key: [`k${position}`, `id${position}`] });

describe('offset anchors', () => {
  it('finds the nearest anchor at or before an offset', () => {
    const anchors = [at(100), at(199), at(500)];
    expect(anchorBefore(anchors, 99)).toBeUndefined();
    expect(anchorBefore(anchors, 100)).toEqual(at(100));
    expect(anchorBefore(anchors, 198)).toEqual(at(100));
    expect(anchorBefore(anchors, 200)).toEqual(at(199));
    expect(anchorBefore(anchors, 9_000)).toEqual(at(500));
    expect(anchorBefore([], 5)).toBeUndefined();
  });

  it("keeps a page's first and last rows, sorted, replacing anchors at the same positions", () => {
    const anchors = withPageAnchors([at(100), at(300)], 200, ['a', '1'], ['b', '2'], 100);
    expect(anchors).toEqual([at(100), { position: 200, key: ['a', '1'] }, { position: 299, key: ['b', '2'] }, at(300)]);
    // A page of one row is one anchor; the same page again replaces it.
    expect(withPageAnchors(anchors, 200, ['c', '3'], ['c', '3'], 1).filter((anchor) => anchor.position === 200)).toEqual([
      { position: 200, key: ['c', '3'] },
    ]);
  });

  it('stays within MAX_ANCHORS, dropping the closest pair first and never the new page', () => {
    let anchors: OffsetAnchor[] = [];
    for (let page = 0; page < MAX_ANCHORS; page += 1) {
      anchors = withPageAnchors(anchors, 1 + page * 1_000, ['a', String(page)], ['b', String(page)], 100);
    }
    expect(anchors).toHaveLength(MAX_ANCHORS);
    const added = withPageAnchors(anchors, 500_000, ['new', 'first'], ['new', 'last'], 100);
    expect(added).toHaveLength(MAX_ANCHORS);
    expect(added.slice(-2).map((anchor) => anchor.position)).toEqual([500_000, 500_099]);
    const positions = added.map((anchor) => anchor.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // Each page's two anchors are 99 apart, its neighbours 901: one of a close pair went.
    expect(positions.filter((position) => position % 1_000 === 100).length).toBeLessThan(MAX_ANCHORS / 2);
  });
});
