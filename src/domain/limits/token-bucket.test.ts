import { describe, expect, it } from 'vitest';
import { type BucketLevel, takeToken } from './token-bucket.js';

const limits = { bucket: 4, refillPerSecond: 2 };

function drain(level: BucketLevel | undefined, atMs: number, times: number) {
  const states = [];
  let current = level;
  for (let i = 0; i < times; i += 1) {
    const { level: next, state } = takeToken(current, limits, atMs);
    current = next;
    states.push(state);
  }
  return { level: current as BucketLevel, states };
}

describe('the token bucket', () => {
  it('serves a burst of the bucket size, then refuses with the wait for one token', () => {
    const { states } = drain(undefined, 0, 5);
    expect(states.map((state) => state.allowed)).toEqual([true, true, true, true, false]);
    expect(states.map((state) => state.remaining)).toEqual([3, 2, 1, 0, 0]);
    expect(states[4]).toMatchObject({ retryAfterSeconds: 1, resetSeconds: 2, limit: 4 });
  });

  it('refills a token at a time, never above the bucket size', () => {
    const { level } = drain(undefined, 0, 4);
    expect(drain(level, 500, 2).states.map((state) => state.allowed)).toEqual([true, false]);
    expect(drain(level, 60_000, 6).states.map((state) => state.allowed)).toEqual([true, true, true, true, false, false]);
  });

  it('lets no window boundary pass twice the bucket: 4 at once, then 2 a second', () => {
    const { level } = drain(undefined, 0, 4);
    const second = drain(level, 1000, 4).states.filter((state) => state.allowed);
    expect(second).toHaveLength(2);
  });
});
