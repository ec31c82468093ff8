import { describe, expect, it } from 'vitest';
import { blobKeyProblem, blobPrefixProblem } from './blob-key.js';
import { isMultipart, MAX_PARTS, MIN_PART_SIZE, partSizeFor, planParts, uploadSizeProblem } from './upload-parts.js';

const MIB = 1024 * 1024;

describe('upload parts', () => {
  it('cuts an upload into parts of the part size, the last one shorter', () => {
    expect(planParts(12 * MIB + 5, 5 * MIB)).toEqual([
      { partNumber: 1, size: 5 * MIB },
      { partNumber: 2, size: 5 * MIB },
      { partNumber: 3, size: 2 * MIB + 5 },
    ]);
    expect(planParts(10 * MIB, 5 * MIB).map((part) => part.size)).toEqual([5 * MIB, 5 * MIB]);
    expect(isMultipart(5 * MIB, 5 * MIB)).toBe(false);
    expect(isMultipart(5 * MIB + 1, 5 * MIB)).toBe(true);
  });

  it('grows the part size in whole MiB past 10,000 parts, and never goes below 5 MiB', () => {
    expect(partSizeFor(100 * MIB, 64 * MIB)).toBe(64 * MIB);
    const size = 1024 * 1024 * MIB; // 1 TiB
    const partSize = partSizeFor(size, 64 * MIB);
    expect(partSize % MIB).toBe(0);
    expect(planParts(size, partSize).length).toBeLessThanOrEqual(MAX_PARTS);
    expect(() => partSizeFor(10, MIN_PART_SIZE - 1)).toThrow();
    expect(() => planParts(0, MIN_PART_SIZE)).toThrow();
  });

  it('accepts sizes from 0 to 5 TiB', () => {
    expect(uploadSizeProblem(0)).toBeUndefined();
    expect(uploadSizeProblem(5 * 1024 ** 4)).toBeUndefined();
    expect(uploadSizeProblem(5 * 1024 ** 4 + 1)).toMatch(/5 TiB/);
    expect(uploadSizeProblem(-1)).toBeDefined();
    expect(uploadSizeProblem(1.5)).toBeDefined();
  });
});

describe('blob keys', () => {
  it('are safe relative paths of plain segments', () => {
    expect(blobKeyProblem('eu/3f1c-aa/input/scan.laz')).toBeUndefined();
    for (const bad of ['', '/abs', 'a//b', 'a/../b', '.', 'a/./b', 'a b', 'a/%2e', 'a\\b', 'ü', 'trailing/']) {
      expect(blobKeyProblem(bad), bad).toBeDefined();
    }
    expect(blobPrefixProblem('eu/node/')).toBeUndefined();
    expect(blobPrefixProblem('eu/no')).toBeUndefined();
    expect(blobPrefixProblem('')).toBeDefined();
    expect(blobPrefixProblem('../')).toBeDefined();
  });
});
