import { inputKind } from '../uploads/file-formats.js';

/** What the cost of processing depends on: the finalized input, nothing else. */
export interface CostInput {
  inputBytes: number;
  fileCount: number;
  format: string | null;
}

const MIB = 1024 * 1024;

/** By kind of input: the base per job and the rate per started 100 MiB. */
const RATES = {
  'point-cloud': { base: 2, perHundredMiB: 1 },
  // A mesh's tiling simplifies every level of detail: more work per byte than points. Its bytes
  // stand for its triangles, which finalize cannot count for an OBJ (docs/processing.md, "Mesh inputs").
  mesh: { base: 4, perHundredMiB: 2 },
  // Reconstruction is the heavier work.
  video: { base: 10, perHundredMiB: 4 },
};

/**
 * Processing cost in credits, a deterministic function of the finalized input
 * (docs/design/processing.md#cost): a base per job and per file, plus a rate per started 100 MiB by
 * kind of input (every file of the session counted, a mesh's textures too).
 */
export function processingCost(input: CostInput): number {
  const { base, perHundredMiB } = RATES[inputKind(input.format) ?? 'point-cloud'];
  const blocks = Math.ceil(input.inputBytes / (100 * MIB));
  return base + input.fileCount + blocks * perHundredMiB;
}
