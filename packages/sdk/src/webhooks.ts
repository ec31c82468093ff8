import { createHmac, timingSafeEqual } from 'node:crypto';

/** A delivery that fails verification: do not act on it (answer 400 or 401). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** A delivery as the platform sends it (docs/design/webhooks.md#deliveries): `{ type, timestamp, data }`. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  type: string;
  timestamp: string;
  data: Data;
}

/** Node's IncomingHttpHeaders, a fetch Headers, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far the webhook-timestamp may be from now, either way (default 300 seconds, as Standard Webhooks advises). */
  toleranceSeconds?: number;
  /** The clock, in milliseconds (tests). */
  now?: () => number;
}

/**
 * Checks a delivery by the Standard Webhooks rules and returns its parsed body: the secret is
 * `whsec_` + base64 (the prefix is optional); the signed content is
 * `${webhook-id}.${webhook-timestamp}.${body}` under HMAC-SHA256; webhook-signature holds one or
 * more space-separated `v1,<base64>` (several during a secret rotation), any one matching is
 * enough, compared in constant time; the timestamp must be within the tolerance of now, so an
 * old delivery cannot be replayed. Pass the body exactly as received (the raw bytes or text,
 * never re-serialised JSON). Throws WebhookVerificationError.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent<Data> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds');

  const tolerance = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? Date.now)() / 1000);
  const sentAt = Number(timestamp);
  if (sentAt < nowSeconds - tolerance) throw new WebhookVerificationError('webhook-timestamp is too old');
  if (sentAt > nowSeconds + tolerance) throw new WebhookVerificationError('webhook-timestamp is too far in the future');

  const key = secretKey(secret);
  const payload =
    typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(payload).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No matching signature');

  try {
    return JSON.parse(payload.toString('utf8')) as WebhookEvent<Data>;
  } catch {
    throw new WebhookVerificationError('The body is not JSON');
  }
}

function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('The secret is empty or not base64');
  return key;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}
