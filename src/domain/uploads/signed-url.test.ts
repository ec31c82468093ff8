import { describe, expect, it } from 'vitest';
import { type BlobGrant, signBlobUrl, verifyBlobUrl } from './signed-url.js';

const key = Buffer.alloc(32, 7);
const now = new Date('2026-01-01T00:00:00Z');
const grant: BlobGrant = {
  method: 'PUT',
  key: 'eu/node-1/file.bin',
  expiresAt: new Date('2026-01-01T01:00:00Z'),
  size: 1234,
  uploadId: 'abc',
  partNumber: 2,
};

function check(url: string, method = 'PUT', at = now, signingKey = key) {
  const parsed = new URL(url);
  const blobKey = parsed.pathname.replace(/^\/blob\//, '');
  return verifyBlobUrl(method, blobKey, Object.fromEntries(parsed.searchParams), signingKey, at);
}

describe('signed blob addresses', () => {
  it('verifies what it signed and gives back the grant', () => {
    const url = signBlobUrl('http://h/blob', grant, key);
    expect(url.startsWith('http://h/blob/eu/node-1/file.bin?')).toBe(true);
    expect(check(url)).toEqual({ ok: true, grant });
  });

  it('refuses a changed parameter, key, method or signing key', () => {
    const url = signBlobUrl('http://h/blob', grant, key);
    expect(check(url.replace('size=1234', 'size=1235'))).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url.replace('partNumber=2', 'partNumber=3'))).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url.replace('uploadId=abc', 'uploadId=abd'))).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url.replace('file.bin', 'other.bin'))).toEqual({ ok: false, reason: 'invalid' });
    expect(check(`${url}&filename=x.txt`)).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url, 'GET')).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url, 'DELETE')).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url, 'PUT', now, Buffer.alloc(32, 8))).toEqual({ ok: false, reason: 'invalid' });
    const signature = new URL(url).searchParams.get('signature') as string;
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    expect(check(url.replace(signature, flipped))).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url.replace(/&signature=[^&]*/, ''))).toEqual({ ok: false, reason: 'invalid' });
    expect(check(url.replace('size=1234', 'size=1e3'))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses an address at and after its expiry, on the clock it is given', () => {
    const url = signBlobUrl('http://h/blob', grant, key);
    expect(check(url, 'PUT', new Date('2026-01-01T00:59:59Z')).ok).toBe(true);
    expect(check(url, 'PUT', new Date('2026-01-01T01:00:00Z'))).toEqual({ ok: false, reason: 'expired' });
    const later = new Date(grant.expiresAt.getTime() + 3600_000);
    const extended = url.replace(/expires=\d+/, `expires=${later.getTime() / 1000}`);
    expect(check(extended, 'PUT', new Date('2026-01-01T01:30:00Z'))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('signs download names and types, HEAD checked as GET', () => {
    const download: BlobGrant = {
      method: 'GET',
      key: 'a/b',
      expiresAt: grant.expiresAt,
      fileName: 'Scan "north" é.laz',
      contentType: 'application/vnd.laszip',
    };
    const url = signBlobUrl('http://h/blob', download, key);
    expect(check(url, 'GET')).toEqual({ ok: true, grant: download });
    expect(check(url, 'HEAD').ok).toBe(true);
    expect(check(url.replace('vnd.laszip', 'octet-stream'), 'GET').ok).toBe(false);
  });
});
