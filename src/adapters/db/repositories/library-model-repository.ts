import type { Kysely, Transaction } from 'kysely';
import type { Dialect } from '../database.js';
import type { LibraryModelRow, RegionalSchema } from '../schema.js';

type Db = Kysely<RegionalSchema> | Transaction<RegionalSchema>;

/** Models of a region's asset libraries. No rules here: the library services apply them. */
export class LibraryModelRepository {
  constructor(
    readonly db: Kysely<RegionalSchema>,
    readonly dialect: Dialect,
  ) {}

  /** The organization's model with that id: another organization's answers like a missing one. */
  async find(orgId: string, id: string, db: Db = this.db): Promise<LibraryModelRow | undefined> {
    return db.selectFrom('library_models').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();
  }
}
