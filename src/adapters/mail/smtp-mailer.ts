import nodemailer from 'nodemailer';
import { type Mailer, MailFailure, type MailFailureKind, type MailMessage } from '../../ports/mailer.js';

export interface SmtpSettings {
  /** smtp:// or smtps:// with optional user:password@ and nodemailer's query options. */
  url: string;
  from: string;
  /** Limit of each wait: the connection, the server's greeting, and any silence afterwards. */
  timeoutMs: number;
}

/** What nodemailer's errors carry (smtp-connection's _formatError). */
interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
}

/**
 * A permanent reply (5xx) to the recipient or to the message is the address's rejection.
 * Every other failure may pass later: a 4xx, a refused or dropped connection, a timeout, and
 * also a 5xx to the sender or to authentication, which is this deployment's configuration
 * and no fault of the address.
 */
export function classifySmtpError(error: unknown): MailFailureKind {
  const { responseCode, command } = (error ?? {}) as SmtpError;
  const aboutRecipient = command === 'RCPT TO' || command === 'DATA';
  return aboutRecipient && typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600
    ? 'rejected'
    : 'unavailable';
}

/** Mail over SMTP with nodemailer: one connection per message, so nothing lingers between sends. */
export class SmtpMailer implements Mailer {
  private readonly transport;

  constructor(settings: SmtpSettings) {
    this.transport = nodemailer.createTransport(
      {
        url: settings.url,
        connectionTimeout: settings.timeoutMs,
        greetingTimeout: settings.timeoutMs,
        socketTimeout: settings.timeoutMs,
        dnsTimeout: settings.timeoutMs,
      },
      { from: settings.from },
    );
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({
        to: message.to,
        subject: message.subject,
        text: message.text,
        ...(message.html !== undefined ? { html: message.html } : {}),
      });
    } catch (error) {
      const { code, responseCode } = (error ?? {}) as SmtpError;
      const detail = [code, responseCode].filter(Boolean).join(' ') || 'unknown error';
      throw new MailFailure(classifySmtpError(error), `SMTP delivery failed (${detail})`, { cause: error });
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}
