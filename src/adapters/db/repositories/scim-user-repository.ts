import type { Kysely, Transaction } from 'kysely';
import type { UserQuery } from '../../../domain/scim/filters.js';
import type { GlobalSchema, UserRow } from '../schema.js';

type Db = Kysely<GlobalSchema> | Transaction<GlobalSchema>;

/** A person of an organization with what SCIM shows of its place there. */
export interface ScimMemberRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  kind: UserRow['kind'];
  scim_managed: number;
  scim_external_id: string | null;
  member_deactivated_at: string | null;
  joined_at: string;
  user_updated_at: string;
  member_updated_at: string | null;
}

/**
 * What the SCIM surface reads and writes of users in the global store: people (kind user) of
 * one organization, found by the filters of domain/scim/filters.ts. Service users never show.
 */
export class ScimUserRepository {
  constructor(readonly db: Kysely<GlobalSchema>) {}

  private people(db: Db, orgId: string, where: UserQuery) {
    let query = db
      .selectFrom('user_organizations as uo')
      .innerJoin('users as u', 'u.id', 'uo.user_id')
      .where('uo.org_id', '=', orgId)
      .where('u.kind', '=', 'user');
    if (where.id !== undefined) query = query.where('u.id', '=', where.id);
    if (where.email !== undefined) query = query.where('u.email', '=', where.email);
    if (where.externalId !== undefined) query = query.where('uo.scim_external_id', '=', where.externalId);
    if (where.active !== undefined) query = query.where('uo.deactivated_at', where.active ? 'is' : 'is not', null);
    return query;
  }

  private withColumns(db: Db, orgId: string, where: UserQuery) {
    return this.people(db, orgId, where).select([
      'u.id',
      'u.email',
      'u.first_name',
      'u.last_name',
      'u.kind',
      'uo.scim_managed',
      'uo.scim_external_id',
      'uo.deactivated_at as member_deactivated_at',
      'uo.created_at as joined_at',
      'u.updated_at as user_updated_at',
      'uo.updated_at as member_updated_at',
    ]);
  }

  async find(orgId: string, userId: string, db: Db = this.db): Promise<ScimMemberRow | undefined> {
    return this.withColumns(db, orgId, { id: userId }).executeTakeFirst();
  }

  async list(orgId: string, where: UserQuery, limit: number, offset: number): Promise<ScimMemberRow[]> {
    return this.withColumns(this.db, orgId, where).orderBy('uo.created_at').orderBy('u.id').limit(limit).offset(offset).execute();
  }

  async count(orgId: string, where: UserQuery): Promise<number> {
    const row = await this.people(this.db, orgId, where)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  /** Of these ids, those of people of the organization: group members must be. */
  async peopleAmong(orgId: string, userIds: string[]): Promise<Set<string>> {
    const found = new Set<string>();
    for (const chunk of chunks(userIds)) {
      const rows = await this.people(this.db, orgId, {}).select('u.id').where('u.id', 'in', chunk).execute();
      for (const row of rows) found.add(row.id);
    }
    return found;
  }

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

  async findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
    return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
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

  async insertUser(db: Db, row: UserRow): Promise<void> {
    await db.insertInto('users').values(row).execute();
  }

  async updateUser(db: Db, userId: string, fields: Partial<Pick<UserRow, 'email' | 'first_name' | 'last_name' | 'updated_at'>>) {
    await db.updateTable('users').set(fields).where('id', '=', userId).execute();
  }
}

/** Ids in slices that stay far below every driver's limit on bound parameters. */
export function chunks<T>(items: T[], size = 500): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}
