import { randomBytes } from 'node:crypto';
import { verifyWebhook, WebhookVerificationError } from '@reality-data-platform/sdk';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';

/** A delivery signed by the npm standardwebhooks package, as a Standard Webhooks sender does. */
function signed(secret: string, body: string, options: { id?: string; at?: Date } = {}) {
  const id = options.id ?? `msg_${randomBytes(8).toString('hex')}`;
  const at = options.at ?? new Date();
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, at, body),
  };
}

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const body = JSON.stringify({
  type: 'bundle.processing.succeeded',
  timestamp: new Date().toISOString(),
  data: { bundleId: 'b1', organizationId: 'o1', region: 'eu' },
});

describe('verifyWebhook by the Standard Webhooks rules', () => {
  it("accepts a delivery the standardwebhooks package signed, from a string, bytes, Headers or Node's headers", () => {
    const headers = signed(secret, body);
    const event = verifyWebhook(secret, headers, body);
    expect(event).toMatchObject({ type: 'bundle.processing.succeeded', data: { bundleId: 'b1' } });
    expect(verifyWebhook(secret, new Headers(headers), new TextEncoder().encode(body)).type).toBe('bundle.processing.succeeded');
    // Node's IncomingHttpHeaders are lower case; a record written by hand may not be.
    const mixedCase = {
      'Webhook-Id': headers['webhook-id'],
      'Webhook-Timestamp': headers['webhook-timestamp'],
      'Webhook-Signature': headers['webhook-signature'],
    };
    expect(verifyWebhook(secret, mixedCase, body).type).toBe('bundle.processing.succeeded');
    // And the package accepts what it signed: the two agree on the format.
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('refuses an altered body, a wrong secret, an altered id and a missing header', () => {
    const headers = signed(secret, body);
    expect(() => verifyWebhook(secret, headers, body.replace('b1', 'b2'))).toThrow(WebhookVerificationError);
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    expect(() => verifyWebhook(other, headers, body)).toThrow(/No matching signature/);
    expect(() => verifyWebhook(secret, { ...headers, 'webhook-id': 'msg_other' }, body)).toThrow(/No matching signature/);
    const { 'webhook-signature': _dropped, ...unsigned } = headers;
    expect(() => verifyWebhook(secret, unsigned, body)).toThrow(/Missing/);
  });

  it('refuses a timestamp outside the tolerance, either way, and takes one inside it', () => {
    const old = signed(secret, body, { at: new Date(Date.now() - 10 * 60_000) });
    expect(() => verifyWebhook(secret, old, body)).toThrow(/too old/);
    expect(verifyWebhook(secret, old, body, { toleranceSeconds: 15 * 60 }).type).toBe('bundle.processing.succeeded');
    const future = signed(secret, body, { at: new Date(Date.now() + 10 * 60_000) });
    expect(() => verifyWebhook(secret, future, body)).toThrow(/future/);
    // The timestamp is part of what is signed: moving it into the window breaks the signature.
    expect(() => verifyWebhook(secret, { ...old, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) }, body)).toThrow(
      /No matching signature/,
    );
  });

  it('takes any one of several space-separated signatures (a secret rotation), and ignores other versions', () => {
    const headers = signed(secret, body);
    const previous = signed(`whsec_${randomBytes(24).toString('base64')}`, body, {
      id: headers['webhook-id'],
      at: new Date(Number(headers['webhook-timestamp']) * 1000),
    });
    const both = { ...headers, 'webhook-signature': `${previous['webhook-signature']} ${headers['webhook-signature']}` };
    expect(verifyWebhook(secret, both, body).type).toBe('bundle.processing.succeeded');
    const wrongVersion = { ...headers, 'webhook-signature': headers['webhook-signature'].replace(/^v1,/, 'v1a,') };
    expect(() => verifyWebhook(secret, wrongVersion, body)).toThrow(/No matching signature/);
    // A secret without the whsec_ prefix is the same key.
    expect(verifyWebhook(secret.slice('whsec_'.length), headers, body).type).toBe('bundle.processing.succeeded');
  });
});
