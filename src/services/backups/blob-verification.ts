import { type BlobProblem, type BlobReference, isPrefix, referenceProblem } from '../../domain/backups/blob-references.js';
import type { BlobStore } from '../../ports/blob-store.js';

/** A region's list of what its store names (BlobReferenceRepository). */
export interface NamedBlobs {
  region: string;
  references(): Promise<BlobReference[]>;
}

export interface BlobCheck {
  /** The references checked. */
  checked: number;
  problems: BlobProblem[];
}

/** How many blobs are looked at at once (S3 requests in flight; filesystem stats). */
const AT_ONCE = 16;

/** The bytes the store holds under a reference: the object's size, or the sum under a prefix; undefined: nothing. */
async function bytesUnder(blobs: Pick<BlobStore, 'head' | 'listPrefix'>, reference: BlobReference): Promise<number | undefined> {
  if (!isPrefix(reference)) return (await blobs.head(reference.key))?.size;
  let total: number | undefined;
  for await (const listed of blobs.listPrefix(reference.key)) total = (total ?? 0) + listed.size;
  return total;
}

/**
 * `rdp admin verify` (docs/operations.md, "Backups and restores"): every blob the stores name
 * exists with its size. On a running platform a row may go (and its blob with it) while this
 * looks: a problem counts only when the store still names the blob once the pass is over.
 */
export async function verifyBlobs(regions: NamedBlobs[], blobs: Pick<BlobStore, 'head' | 'listPrefix'>): Promise<BlobCheck> {
  let checked = 0;
  const problems: BlobProblem[] = [];
  for (const region of regions) {
    const references = await region.references();
    checked += references.length;
    const found: BlobProblem[] = [];
    for (let start = 0; start < references.length; start += AT_ONCE) {
      const batch = references.slice(start, start + AT_ONCE);
      const sizes = await Promise.all(batch.map((reference) => bytesUnder(blobs, reference)));
      batch.forEach((reference, i) => {
        const problem = referenceProblem(region.region, reference, sizes[i]);
        if (problem) found.push(problem);
      });
    }
    if (found.length === 0) continue;
    const stillNamed = new Set((await region.references()).map((reference) => `${reference.namedBy}\n${reference.key}`));
    problems.push(...found.filter((problem) => stillNamed.has(`${problem.namedBy}\n${problem.key}`)));
  }
  return { checked, problems };
}
