import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Standard Webhooks signing (https://www.standardwebhooks.com): secrets, signatures and their check. */

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes, base64, after the whsec_ prefix. */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The webhook-signature header: one signature per secret, space-separated (the newest first). */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => signWebhook(secret, id, timestampSeconds, body)).join(' ');
}

/** Whether one of the header's v1 signatures is the secret's (what a receiver checks; used by the tests' own helper too). */
export function hasValidSignature(secret: string, header: string, id: string, timestampSeconds: number, body: string): boolean {
  const expected = Buffer.from(signWebhook(secret, id, timestampSeconds, body));
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
