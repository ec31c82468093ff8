import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed addresses of the embedded blob endpoint. What the holder of an address may do (method,
 * key, size of the body, the multipart upload and part, the download's file name and type) and
 * until when is written into its query and covered by an HMAC-SHA256 with a server secret, so
 * the endpoint needs no lookup to authorize a request and a changed parameter breaks the
 * signature. Pure: the time is passed in.
 */
export interface BlobGrant {
  method: 'GET' | 'PUT';
  key: string;
  expiresAt: Date;
  /** PUT: the exact body length. */
  size?: number;
  uploadId?: string;
  partNumber?: number;
  /** GET: the Content-Disposition file name and the Content-Type to answer with. */
  fileName?: string;
  contentType?: string;
}

export type GrantCheck = { ok: true; grant: BlobGrant } | { ok: false; reason: 'invalid' | 'expired' };

const VERSION = 'rdp-blob-v1';
const PARAMS = {
  expires: 'expires',
  size: 'size',
  uploadId: 'uploadId',
  partNumber: 'partNumber',
  fileName: 'filename',
  contentType: 'type',
  signature: 'signature',
} as const;

/** Every field in a fixed order, JSON-encoded so that no value can shift into another. */
function canonical(grant: BlobGrant, expires: number): string {
  return JSON.stringify([
    VERSION,
    grant.method,
    grant.key,
    expires,
    grant.size ?? null,
    grant.uploadId ?? null,
    grant.partNumber ?? null,
    grant.fileName ?? null,
    grant.contentType ?? null,
  ]);
}

function mac(grant: BlobGrant, expires: number, signingKey: Buffer): Buffer {
  return createHmac('sha256', signingKey).update(canonical(grant, expires)).digest();
}

/** `baseUrl` is the endpoint's public address (…/blob); keys need no escaping (see blob-key.ts). */
export function signBlobUrl(baseUrl: string, grant: BlobGrant, signingKey: Buffer): string {
  const expires = Math.floor(grant.expiresAt.getTime() / 1000);
  const query = new URLSearchParams({ [PARAMS.expires]: String(expires) });
  if (grant.size !== undefined) query.set(PARAMS.size, String(grant.size));
  if (grant.uploadId !== undefined) query.set(PARAMS.uploadId, grant.uploadId);
  if (grant.partNumber !== undefined) query.set(PARAMS.partNumber, String(grant.partNumber));
  if (grant.fileName !== undefined) query.set(PARAMS.fileName, grant.fileName);
  if (grant.contentType !== undefined) query.set(PARAMS.contentType, grant.contentType);
  query.set(PARAMS.signature, mac(grant, expires, signingKey).toString('base64url'));
  return `${baseUrl}/${grant.key}?${query}`;
}

const WHOLE = /^(0|[1-9][0-9]{0,15})$/;

function whole(raw: string | undefined): number | undefined | null {
  if (raw === undefined) return undefined;
  return WHOLE.test(raw) ? Number(raw) : null;
}

/**
 * Checks a request against its address: the signature first (constant-time), then the expiry.
 * HEAD is checked as GET. Parameters outside the signed set are ignored: they change nothing.
 */
export function verifyBlobUrl(
  method: string,
  key: string,
  query: Record<string, string | undefined>,
  signingKey: Buffer,
  now: Date,
): GrantCheck {
  const verb = method === 'HEAD' ? 'GET' : method;
  if (verb !== 'GET' && verb !== 'PUT') return { ok: false, reason: 'invalid' };
  const expires = whole(query[PARAMS.expires]);
  const size = whole(query[PARAMS.size]);
  const partNumber = whole(query[PARAMS.partNumber]);
  const signature = query[PARAMS.signature];
  if (expires === undefined || expires === null || size === null || partNumber === null || !signature) {
    return { ok: false, reason: 'invalid' };
  }
  const grant: BlobGrant = { method: verb, key, expiresAt: new Date(expires * 1000) };
  if (size !== undefined) grant.size = size;
  if (query[PARAMS.uploadId] !== undefined) grant.uploadId = query[PARAMS.uploadId];
  if (partNumber !== undefined) grant.partNumber = partNumber;
  if (query[PARAMS.fileName] !== undefined) grant.fileName = query[PARAMS.fileName];
  if (query[PARAMS.contentType] !== undefined) grant.contentType = query[PARAMS.contentType];

  const expected = mac(grant, expires, signingKey);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (now.getTime() >= grant.expiresAt.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true, grant };
}
