import { inputKind } from '../uploads/file-formats.js';

/** What the cost of processing depends on: the finalized input, nothing else. */
export interface CostInput {
  inputBytes: number;
  fileCount: number;
  format: string | null;
  /** A mesh's triangles as finalize counted them; null when it could not tell (and for other kinds). */
  triangles: number | null;
}

const MIB = 1024 * 1024;

/** By kind of input: the base per job and the rate per started 100 MiB. */
const RATES = {
  'point-cloud': { base: 2, perHundredMiB: 1 },
  // A mesh's tiling simplifies every level of detail: more work per byte than points.
  mesh: { base: 4, perHundredMiB: 2 },
  // Reconstruction is the heavier work.
  video: { base: 10, perHundredMiB: 4 },
};

/**
 * A mesh's work grows with its triangles, whatever bytes its format spends on them: the rate per
 * started million triangles. At the 20 million triangle bound it is 40 credits, about what the
 * 2 GiB bound costs by bytes (42), so the two measures price the largest mesh alike.
 */
const MESH_PER_MILLION_TRIANGLES = 2;

/**
 * Processing cost in credits, a deterministic function of the finalized input
 * (docs/design/processing.md#cost): a base per job and per file, plus, for a mesh whose triangles
 * finalize counted, a rate per started million triangles; else a rate per started 100 MiB by kind
 * of input (every file of the session counted, a mesh's textures too).
 */
export function processingCost(input: CostInput): number {
  const kind = inputKind(input.format) ?? 'point-cloud';
  const { base, perHundredMiB } = RATES[kind];
  if (kind === 'mesh' && input.triangles !== null) {
    return base + input.fileCount + Math.ceil(input.triangles / 1_000_000) * MESH_PER_MILLION_TRIANGLES;
  }
  const blocks = Math.ceil(input.inputBytes / (100 * MIB));
  return base + input.fileCount + blocks * perHundredMiB;
}
