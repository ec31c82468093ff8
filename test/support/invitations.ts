import net from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { OrgFixture } from './fixtures.js';
import type { TestPlatform } from './platform.js';
import { freePort } from './ports.js';

/** What an invitation may change, in both stores: compare before and after a refused request. */
export async function peopleSnapshot(t: TestPlatform, org: OrgFixture) {
  const regional = t.platform.regions[org.region].store.db;
  const global = t.platform.stores.global.db;
  return {
    invitations: await regional.selectFrom('invitations').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
    memberships: await regional.selectFrom('memberships').selectAll().orderBy('node_id').orderBy('principal_id').execute(),
    userOrganizations: await global
      .selectFrom('user_organizations')
      .selectAll()
      .where('org_id', '=', org.orgId)
      .orderBy('user_id')
      .execute(),
    users: await global.selectFrom('users').selectAll().orderBy('id').execute(),
    outbox: await global.selectFrom('mail_outbox').selectAll().orderBy('id').execute(),
    audit: await regional.selectFrom('audit_events').selectAll().where('org_id', '=', org.orgId).orderBy('id').execute(),
  };
}

export function outbox(t: TestPlatform) {
  return t.platform.stores.global.db
    .selectFrom('mail_outbox')
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** The acceptance link of a mail's text. */
export function invitationLinkIn(text: string): string {
  const match = /https?:\/\/\S+\/auth\/invitations\/[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error(`no invitation link in: ${text.slice(0, 500)}`);
  return match[0];
}

/** The link of the newest kept mail to an address. */
export async function linkMailedTo(t: TestPlatform, email: string): Promise<string> {
  const mail = (await outbox(t)).find((row) => row.to_address === email);
  if (!mail) throw new Error(`no mail to ${email}`);
  return invitationLinkIn(mail.text_body);
}

/** Sets organization fields the API has no route for (allowed domains, seat limit). */
export async function setOrganization(
  t: TestPlatform,
  org: OrgFixture,
  fields: { email_domains?: string; seat_limit?: number | null },
) {
  await t.platform.stores.global.db.updateTable('organizations').set(fields).where('id', '=', org.orgId).execute();
}

/** A body of a raw message in quoted-printable, as nodemailer writes text with long lines, decoded. */
export function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

export type SmtpMode = 'accept' | 'reject' | 'defer';

/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package) for the SMTP mailer: it accepts and
 * keeps messages, refuses the recipient for good (550) or for now (450), or is down (stop()).
 */
export class TestSmtpServer {
  mode: SmtpMode = 'accept';
  readonly messages: { from: string; to: string[]; raw: string }[] = [];
  private server: SMTPServer | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<TestSmtpServer> {
    const smtp = new TestSmtpServer(await freePort());
    await smtp.listen();
    return smtp;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo: (_address, _session, callback) => {
        if (this.mode === 'accept') return callback();
        const error = Object.assign(new Error(this.mode === 'reject' ? 'No such user here' : 'Mailbox busy, try later'), {
          responseCode: this.mode === 'reject' ? 550 : 450,
        });
        return callback(error);
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  /** Down: the port refuses connections until listen() again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A server that takes connections and never greets: the mailer's greeting timeout. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
