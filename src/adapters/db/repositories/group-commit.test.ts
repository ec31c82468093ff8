import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.js';

describe('GroupCommit', () => {
  it('writes rows added together in one insert and resolves each after it', async () => {
    const inserts: number[][] = [];
    const committed = new Set<number>();
    const group = new GroupCommit<number>(async (rows) => {
      inserts.push(rows);
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (const row of rows) committed.add(row);
    });
    const first = Array.from({ length: 10 }, (_, i) => group.add(i).then(() => expect(committed.has(i)).toBe(true)));
    await Promise.all(first);
    expect(inserts).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]);
  });

  it('batches what arrives while an insert is in flight, at most 50 rows a statement', async () => {
    const inserts: number[][] = [];
    const group = new GroupCommit<number>(async (rows) => {
      inserts.push(rows);
      await new Promise((resolve) => setTimeout(resolve, 5));
    });
    const first = group.add(0);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = Array.from({ length: 120 }, (_, i) => group.add(i + 1));
    await Promise.all([first, ...rest]);
    expect(inserts.map((rows) => rows.length)).toEqual([1, 50, 50, 20]);
  });

  it('fails only the caller of a bad row when a batch fails', async () => {
    const group = new GroupCommit<number>(async (rows) => {
      if (rows.includes(13)) throw new Error('constraint');
    });
    const results = await Promise.allSettled([12, 13, 14].map((row) => group.add(row)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
