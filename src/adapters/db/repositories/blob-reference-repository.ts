import type { Kysely } from 'kysely';
import { type BlobReference, comparisonReference } from '../../../domain/backups/blob-references.js';
import type { RegionalSchema } from '../schema.js';

const PAGE = 1000;

/**
 * Every blob a regional store names with its size (domain/backups/blob-references.ts): finalized
 * stored objects (a key, or a derivative's prefix), library models' originals, previews and
 * thumbnails, and ready comparisons' prefixes. Pending uploads name nothing yet: their bytes may
 * not be there. Read on a live store (`rdp admin verify`) or on a backup's copy of one.
 */
export class BlobReferenceRepository {
  constructor(private readonly db: Kysely<RegionalSchema>) {}

  /** Page after page, each table in id order. */
  async *references(): AsyncGenerator<BlobReference[]> {
    for (let after = ''; ; ) {
      const rows = await this.db
        .selectFrom('stored_objects')
        .select(['id', 'blob_key', 'stored_bytes'])
        .where('state', '=', 'finalized')
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      yield rows.map((row) => ({ key: row.blob_key, bytes: row.stored_bytes ?? 0, namedBy: `stored object ${row.id}` }));
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]?.id as string;
    }
    for (let after = ''; ; ) {
      const rows = await this.db
        .selectFrom('library_models')
        .select(['id', 'blob_key', 'stored_bytes', 'preview_blob_key', 'preview_bytes', 'thumbnail_blob_key', 'thumbnail_bytes'])
        .where('stored_bytes', 'is not', null)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      yield rows.flatMap((row) => {
        const namedBy = `library model ${row.id}`;
        const found: BlobReference[] = [{ key: row.blob_key, bytes: row.stored_bytes ?? 0, namedBy }];
        if (row.preview_blob_key) found.push({ key: row.preview_blob_key, bytes: row.preview_bytes ?? 0, namedBy });
        if (row.thumbnail_blob_key) found.push({ key: row.thumbnail_blob_key, bytes: row.thumbnail_bytes ?? 0, namedBy });
        return found;
      });
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]?.id as string;
    }
    for (let after = ''; ; ) {
      const rows = await this.db
        .selectFrom('comparisons')
        .select(['id', 'org_id', 'size_bytes'])
        .where('state', '=', 'ready')
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE)
        .execute();
      yield rows.map(comparisonReference);
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]?.id as string;
    }
  }

  /** Every reference at once: a backup's and a check's list. */
  async all(): Promise<BlobReference[]> {
    const found: BlobReference[] = [];
    for await (const page of this.references()) found.push(...page);
    return found;
  }
}
