import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { GlobalSchema } from '../schema.js';

/**
 * Keys the platform generates once and every copy of it shares through the global store. The
 * first copy to start inserts a secret; any other that raced it reads the one that won.
 */
export class ServerSecretRepository {
  constructor(private readonly db: Kysely<GlobalSchema>) {}

  async secret(name: string, now: string): Promise<Buffer> {
    await this.db
      .insertInto('server_secrets')
      .values({ name, secret: randomBytes(32).toString('base64'), created_at: now })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db.selectFrom('server_secrets').select('secret').where('name', '=', name).executeTakeFirstOrThrow();
    return Buffer.from(row.secret, 'base64');
  }
}
