import type { Kysely } from 'kysely';
import type { MailConfig } from '../../config/config.js';
import type { Clock } from '../../ports/clock.js';
import type { Mailer } from '../../ports/mailer.js';
import type { GlobalSchema } from '../db/schema.js';
import { OutboxMailer } from './outbox-mailer.js';

/**
 * SMTP when a server is configured; otherwise the outbox in the global store. nodemailer is
 * imported only for SMTP (docs/performance.md#start-up-the-causes-of-7-s).
 */
export async function openMailer(config: MailConfig, globalDb: Kysely<GlobalSchema>, clock: Clock): Promise<Mailer> {
  if (config.smtpUrl) {
    const { SmtpMailer } = await import('./smtp-mailer.js');
    return new SmtpMailer({ url: config.smtpUrl, from: config.from, timeoutMs: config.timeoutMs });
  }
  return new OutboxMailer(globalDb, clock);
}
