import { describe, expect, it } from 'vitest';
import { outermostPaths } from './node-list-repository.js';

describe('outermostPaths', () => {
  it('keeps the paths no other path contains, sorted', () => {
    expect(outermostPaths(['/o/b/c/', '/o/a/', '/o/b/', '/o/a/x/y/', '/o/ab/'])).toEqual(['/o/a/', '/o/ab/', '/o/b/']);
    expect(outermostPaths(['/o/b/', '/o/'])).toEqual(['/o/']);
    expect(outermostPaths([])).toEqual([]);
  });
});
