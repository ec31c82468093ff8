import { describe, expect, it } from 'vitest';
import { processingCost } from './cost.js';

const MIB = 1024 * 1024;

describe('processingCost: a base by kind, one a file, a rate by bytes or, for a mesh, by triangles', () => {
  it('prices point clouds and videos by started 100 MiB', () => {
    expect(processingCost({ inputBytes: 1, fileCount: 1, format: 'las', triangles: null })).toBe(2 + 1 + 1);
    expect(processingCost({ inputBytes: 100 * MIB + 1, fileCount: 1, format: 'laz', triangles: null })).toBe(2 + 1 + 2);
    expect(processingCost({ inputBytes: 100 * MIB, fileCount: 1, format: 'mp4', triangles: null })).toBe(10 + 1 + 4);
  });

  it('prices a mesh by its started millions of triangles, its bytes aside', () => {
    const mesh = { inputBytes: 5 * MIB, fileCount: 3, format: 'obj' };
    expect(processingCost({ ...mesh, triangles: 12 })).toBe(4 + 3 + 2);
    expect(processingCost({ ...mesh, triangles: 1_000_000 })).toBe(4 + 3 + 2);
    expect(processingCost({ ...mesh, triangles: 1_000_001 })).toBe(4 + 3 + 4);
    expect(processingCost({ ...mesh, triangles: 20_000_000 })).toBe(4 + 3 + 40);
    expect(processingCost({ ...mesh, inputBytes: 1500 * MIB, triangles: 12 })).toBe(4 + 3 + 2);
    for (const format of ['gltf', 'glb', 'ply-mesh'])
      expect(processingCost({ ...mesh, format, triangles: 2_500_000 })).toBe(4 + 3 + 6);
  });

  it('prices a mesh whose triangles finalize could not count by its bytes', () => {
    expect(processingCost({ inputBytes: 40 * MIB, fileCount: 2, format: 'gltf', triangles: null })).toBe(4 + 2 + 2);
    expect(processingCost({ inputBytes: 2048 * MIB, fileCount: 1, format: 'glb', triangles: null })).toBe(4 + 1 + 42);
  });

  it('is the same for the same input', () => {
    const input = { inputBytes: 123_456_789, fileCount: 4, format: 'ply-mesh', triangles: 3_456_789 };
    expect(processingCost(input)).toBe(processingCost({ ...input }));
  });
});
