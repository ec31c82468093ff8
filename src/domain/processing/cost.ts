import { inputKind } from '../uploads/file-formats.js';

/** What the cost of processing depends on: the finalized input, nothing else. */
export interface CostInput {
  inputBytes: number;
  fileCount: number;
  format: string | null;
}

const MIB = 1024 * 1024;

/**
 * Processing cost in credits, a deterministic function of the finalized input
 * (docs/design/processing.md#cost): a base per job and per file, plus a rate per started 100 MiB by
 * kind of input (video costs more: reconstruction is the heavier work).
 */
export function processingCost(input: CostInput): number {
  const kind = inputKind(input.format);
  const perHundredMiB = kind === 'video' ? 4 : 1;
  const base = kind === 'video' ? 10 : 2;
  const blocks = Math.ceil(input.inputBytes / (100 * MIB));
  return base + input.fileCount + blocks * perHundredMiB;
}
