import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Text kept encrypted at rest (AES-256-GCM under a 32-byte key of the global store's server
 * secrets): what the platform must read back, unlike client secrets, which are only hashed.
 * Webhook signing secrets live in the regional stores; their key does not.
 */
const PREFIX = 'sealed1.';

export function sealText(key: Buffer, text: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
}

/** The text sealed by sealText with the same key; throws when it was sealed otherwise or changed. */
export function unsealText(key: Buffer, sealed: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error('not a sealed text');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
