import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../ports/clock.js';
import type { Mailer, MailMessage } from '../../ports/mailer.js';
import type { GlobalSchema, MailOutboxRow } from '../db/schema.js';

/**
 * The embedded default's mail: kept in the global store's mail_outbox, which the page at
 * {auth_url}/outbox lists, so a newcomer sees invitations without a mail server.
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly db: Kysely<GlobalSchema>,
    private readonly clock: Clock,
  ) {}

  async send(message: MailMessage): Promise<void> {
    await this.db
      .insertInto('mail_outbox')
      .values({
        id: randomUUID(),
        to_address: message.to,
        subject: message.subject,
        text_body: message.text,
        html_body: message.html ?? null,
        created_at: this.clock.now().toISOString(),
      })
      .execute();
  }

  /** Newest first. */
  async list(limit: number): Promise<MailOutboxRow[]> {
    return this.db
      .selectFrom('mail_outbox')
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async close(): Promise<void> {}
}
