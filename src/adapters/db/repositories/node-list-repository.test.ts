import { describe, expect, it } from 'vitest';
import { insideOneOf, outermostPaths } from './node-list-repository.js';

describe('outermostPaths', () => {
  it('keeps the paths no other path contains, sorted', () => {
    expect(outermostPaths(['/o/b/c/', '/o/a/', '/o/b/', '/o/a/x/y/', '/o/ab/'])).toEqual(['/o/a/', '/o/ab/', '/o/b/']);
    expect(outermostPaths(['/o/b/', '/o/'])).toEqual(['/o/']);
    expect(outermostPaths([])).toEqual([]);
  });
});

describe('insideOneOf', () => {
  const subtrees = outermostPaths(['/o/b/', '/o/ab/', '/o/d/e/', '/o/a/']);

  it('finds the subtree a path lies in, whatever sorts between them', () => {
    for (const path of ['/o/a/', '/o/a/x/', '/o/a/zz/y/', '/o/ab/', '/o/ab/c/', '/o/b/', '/o/b/a/', '/o/d/e/f/']) {
      expect(insideOneOf(subtrees, path), path).toBe(true);
    }
  });

  it('refuses paths beside, above or between the subtrees, and any path when there is none', () => {
    for (const path of ['/o/', '/o/aa/', '/o/abc/', '/o/c/', '/o/d/', '/o/d/f/', '/o/e/', '/p/a/', '/o/0/']) {
      expect(insideOneOf(subtrees, path), path).toBe(false);
    }
    expect(insideOneOf([], '/o/a/')).toBe(false);
  });

  it('agrees with a check of every subtree on random paths', () => {
    const ids = ['a', 'b', 'ab', 'ba', 'c', 'a0', '0'];
    const random = (depth: number) =>
      `/o/${Array.from({ length: depth }, () => ids[Math.floor(Math.random() * ids.length)]).join('/')}/`;
    for (let round = 0; round < 200; round += 1) {
      const some = outermostPaths(
        Array.from({ length: 1 + Math.floor(Math.random() * 6) }, () => random(1 + Math.floor(Math.random() * 3))),
      );
      const path = random(1 + Math.floor(Math.random() * 4));
      expect(insideOneOf(some, path), `${path} in ${some}`).toBe(some.some((subtree) => path.startsWith(subtree)));
    }
  });
});
