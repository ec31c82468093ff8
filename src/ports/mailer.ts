/** Sending mail: SMTP in a deployment, the store's outbox on the embedded default. */

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Why a message was not sent. rejected: the server refused it for good (a 5xx about the
 * recipient or the message), so sending it again is pointless. unavailable: it may go through
 * later (a 4xx, no connection, a timeout, or the server's own configuration).
 */
export type MailFailureKind = 'rejected' | 'unavailable';

export class MailFailure extends Error {
  constructor(
    readonly kind: MailFailureKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MailFailure';
  }
}

export interface Mailer {
  /** Resolves once the server has taken the message; throws a MailFailure when it has not. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
