import type { Kysely, Transaction } from 'kysely';
import type { GlobalSchema, UserRow } from '../schema.js';
import { chunks } from './chunks.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

/**
 * What the SCIM surface needs of the global users beyond OrganizationMemberRepository (people and
 * their places), DirectoryRepository (a user by e-mail) and UserRepository (a user's fields).
 */
export class ScimUserRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  /** Names to show beside group members. */
  async names(userIds: string[]): Promise<Map<string, { email: string; first_name: string; last_name: string }>> {
    const names = new Map<string, { email: string; first_name: string; last_name: string }>();
    for (const chunk of chunks(userIds)) {
      const rows = await this.db
        .selectFrom('users')
        .select(['id', 'email', 'first_name', 'last_name'])
        .where('id', 'in', chunk)
        .execute();
      for (const row of rows) names.set(row.id, row);
    }
    return names;
  }

  /** How many organizations a user belongs to. */
  async organizationCount(db: Db, userId: string): Promise<number> {
    const row = await db
      .selectFrom('user_organizations')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** A new person, in the caller's transaction (the seat lock's): its place follows there. */
  async insertUser(db: Db, row: UserRow): Promise<void> {
    await db.insertInto('users').values(row).execute();
  }
}
