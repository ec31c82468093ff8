import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifySmtpError } from '../../src/adapters/mail/smtp-mailer.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { decodeQuotedPrintable, invitationLinkIn, peopleSnapshot, silentServer, TestSmtpServer } from '../support/invitations.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { expectRefused } from '../support/refusals.js';

const address = () => `invitee-${randomUUID().slice(0, 8)}@example.test`;

/** Invitations mailed over SMTP to a real SMTP server started by the test. */
describe('invitation mail over SMTP', () => {
  let smtp: TestSmtpServer;
  let t: TestPlatform;
  let org: OrgFixture;

  beforeAll(async () => {
    smtp = await TestSmtpServer.start();
    t = await startPlatform({ RDP_SMTP_URL: smtp.url, RDP_SMTP_TIMEOUT_MS: '2000' });
    org = await createOrg(t);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.stop();
  });

  const invite = (email: string) => org.admin.post('/v1/invitations', { email, roleId: 'organization-reader' });

  /** A refused invitation leaves both stores as they were; the same request then succeeds. */
  async function refusedThenRetried(email: string, status: number, error: string, makeAvailable: () => Promise<void>) {
    await expectRefused(
      () => invite(email),
      { status, error },
      () => peopleSnapshot(t, org),
    );
    await makeAvailable();
    const retried = await invite(email);
    expect(retried.status).toBe(201);
    expect(retried.body.state).toBe('pending');
  }

  it('sends the invitation before answering 201, with the link to the acceptance page', async () => {
    smtp.mode = 'accept';
    const email = address();
    const response = await invite(email);
    expect(response.status).toBe(201);
    const message = smtp.messages.at(-1);
    expect(message?.to).toEqual([email]);
    expect(message?.from).toBe('no-reply@localhost');
    expect(message?.raw).toMatch(/^From: Reality Data Platform <no-reply@localhost>/m);
    const link = invitationLinkIn(decodeQuotedPrintable(message?.raw ?? ''));
    expect(link.startsWith(`${t.authUrl}/invitations/`)).toBe(true);
    const page = await fetch(link);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Organization Reader');
    // Mail left: nothing is kept, and there is no outbox page.
    expect((await peopleSnapshot(t, org)).outbox).toEqual([]);
    expect((await fetch(`${t.authUrl}/outbox`)).status).toBe(404);
  });

  it('is 422 InvitationEmailRejected when the server refuses the recipient for good (5xx)', async () => {
    smtp.mode = 'reject';
    await refusedThenRetried(address(), 422, 'InvitationEmailRejected', async () => {
      smtp.mode = 'accept';
    });
  });

  it('is 503 InvitationEmailNotSent when the server refuses for now (4xx)', async () => {
    smtp.mode = 'defer';
    await refusedThenRetried(address(), 503, 'InvitationEmailNotSent', async () => {
      smtp.mode = 'accept';
    });
  });

  it('is 503 InvitationEmailNotSent when the server is down', async () => {
    await smtp.stop();
    await refusedThenRetried(address(), 503, 'InvitationEmailNotSent', () => smtp.listen());
  });

  it('is 503 InvitationEmailNotSent within the timeout when the server never greets', async () => {
    const silent = await silentServer();
    const waiting = await startPlatform({ RDP_SMTP_URL: silent.url, RDP_SMTP_TIMEOUT_MS: '300' });
    try {
      const waitingOrg = await createOrg(waiting);
      const started = Date.now();
      const response = await waitingOrg.admin.post('/v1/invitations', { email: address(), roleId: 'organization-reader' });
      expect(response.status).toBe(503);
      expect(response.body.error).toBe('InvitationEmailNotSent');
      expect(Date.now() - started).toBeLessThan(5000);
      expect((await peopleSnapshot(waiting, waitingOrg)).invitations).toEqual([]);
    } finally {
      await waiting.close();
      await silent.close();
    }
  });
});

describe('SMTP failures and settings', () => {
  it('calls a 5xx about the recipient or the message a rejection, anything else unavailable', () => {
    expect(classifySmtpError({ code: 'EENVELOPE', responseCode: 550, command: 'RCPT TO' })).toBe('rejected');
    expect(classifySmtpError({ code: 'EMESSAGE', responseCode: 554, command: 'DATA' })).toBe('rejected');
    expect(classifySmtpError({ code: 'EENVELOPE', responseCode: 450, command: 'RCPT TO' })).toBe('unavailable');
    // The sender and the credentials are the deployment's configuration, not the address's fault.
    expect(classifySmtpError({ code: 'EENVELOPE', responseCode: 553, command: 'MAIL FROM' })).toBe('unavailable');
    expect(classifySmtpError({ code: 'EAUTH', responseCode: 535, command: 'AUTH PLAIN' })).toBe('unavailable');
    expect(classifySmtpError({ code: 'ESOCKET' })).toBe('unavailable');
    expect(classifySmtpError({ code: 'ETIMEDOUT', command: 'CONN' })).toBe('unavailable');
    expect(classifySmtpError(undefined)).toBe('unavailable');
  });

  it('reads RDP_SMTP_URL, RDP_MAIL_FROM and RDP_SMTP_TIMEOUT_MS, and refuses bad values at start', () => {
    expect(loadConfig({}).mail).toEqual({
      smtpUrl: undefined,
      from: 'Reality Data Platform <no-reply@localhost>',
      timeoutMs: 10_000,
    });
    const configured = loadConfig({
      RDP_SMTP_URL: 'smtps://mailer:secret@mail.example.com:465',
      RDP_MAIL_FROM: 'Acme Scans <scans@example.com>',
      RDP_SMTP_TIMEOUT_MS: '5000',
    }).mail;
    expect(configured).toEqual({
      smtpUrl: 'smtps://mailer:secret@mail.example.com:465',
      from: 'Acme Scans <scans@example.com>',
      timeoutMs: 5000,
    });
    expect(loadConfig({ RDP_MAIL_FROM: 'scans@example.com' }).mail.from).toBe('scans@example.com');

    expect(() => loadConfig({ RDP_SMTP_URL: 'http://mail.example.com' })).toThrow(ConfigError);
    expect(() => loadConfig({ RDP_SMTP_URL: 'smtp://' })).toThrow(/RDP_SMTP_URL/);
    // The message never repeats a password the URL may hold.
    expect(() => loadConfig({ RDP_SMTP_URL: 'mailto://user:hunter2@x' })).toThrow(/^(?!.*hunter2)/);
    expect(() => loadConfig({ RDP_MAIL_FROM: 'not an address' })).toThrow(/RDP_MAIL_FROM/);
    expect(() => loadConfig({ RDP_MAIL_FROM: 'Evil\r\nBcc: x@y.z <a@b.c>' })).toThrow(/RDP_MAIL_FROM/);
    expect(() => loadConfig({ RDP_SMTP_TIMEOUT_MS: '5' })).toThrow(/RDP_SMTP_TIMEOUT_MS/);
  });
});
