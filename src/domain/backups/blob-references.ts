import { comparisonBlobPrefix } from '../comparisons/comparison-outputs.js';

/**
 * What the stores say the blob store holds (docs/operations.md, "Backups and restores"): a key
 * with its size, or a prefix (ending in "/", a derivative's or a comparison's files) with the
 * bytes of everything under it. No I/O.
 */
export interface BlobReference {
  key: string;
  bytes: number;
  /** The row that names it, for the operator: `stored object <id>`, `library model <id>`... */
  namedBy: string;
}

export function isPrefix(reference: Pick<BlobReference, 'key'>): boolean {
  return reference.key.endsWith('/');
}

/** A ready comparison's files: one prefix of its tiles and CSV (comparison-outputs.ts). */
export function comparisonReference(row: { id: string; org_id: string; size_bytes: number }): BlobReference {
  return { key: comparisonBlobPrefix(row.org_id, row.id), bytes: row.size_bytes, namedBy: `comparison ${row.id}` };
}

/** What a check found of one reference: nothing under it, or fewer bytes than the row records. */
export interface BlobProblem extends BlobReference {
  region: string;
  problem: 'missing' | 'size';
  /** The bytes found (a size problem only). */
  found?: number;
}

/**
 * The problem of one reference, given what the store holds under it (undefined: no object, or
 * nothing under the prefix). A prefix may hold more than recorded (a retried job's leftovers),
 * never less.
 */
export function referenceProblem(region: string, reference: BlobReference, found: number | undefined): BlobProblem | undefined {
  if (found === undefined) return { ...reference, region, problem: 'missing' };
  const short = isPrefix(reference) ? found < reference.bytes : found !== reference.bytes;
  return short ? { ...reference, region, problem: 'size', found } : undefined;
}

/** One line per problem, naming the blob and the row: what verify and backup print. */
export function describeBlobProblem(problem: BlobProblem): string {
  const where = `${problem.region}: ${problem.key} (${problem.namedBy})`;
  return problem.problem === 'missing'
    ? `${where} is missing`
    : `${where} has ${problem.found} bytes where ${problem.bytes} are recorded`;
}
