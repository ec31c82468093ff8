import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openRefreshToken, sealRefreshToken } from './refresh-tokens.js';

const claims = {
  familyId: 'family-1',
  clientId: 'client-1',
  userId: 'user-1',
  orgId: 'org-1',
  scopes: ['read:basic', 'write:hierarchy'],
  identityProvider: 'local',
  issuedAtMs: 1_700_000_000_123,
  expiresAtMs: 1_700_086_400_123,
};

describe('sealed refresh tokens', () => {
  const key = randomBytes(32);

  it('opens what it sealed, with a fresh id each time', () => {
    const first = sealRefreshToken(key, claims);
    const second = sealRefreshToken(key, claims);
    expect(first).not.toBe(second);
    const opened = openRefreshToken(key, first);
    expect(opened).toMatchObject(claims);
    expect(opened?.id).not.toBe(openRefreshToken(key, second)?.id);
  });

  it('refuses another key, an altered payload or signature, and malformed tokens', () => {
    const token = sealRefreshToken(key, claims);
    expect(openRefreshToken(randomBytes(32), token)).toBeUndefined();
    const [version, payload, signature] = token.split('.') as [string, string, string];
    const widened = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), s: 'write:user' }),
    ).toString('base64url');
    expect(openRefreshToken(key, `${version}.${widened}.${signature}`)).toBeUndefined();
    expect(openRefreshToken(key, `${version}.${payload}.${signature.slice(1)}`)).toBeUndefined();
    expect(openRefreshToken(key, `${token}.extra`)).toBeUndefined();
    // The last character of the signature carries two spare bits: another spelling of the same bytes is refused.
    const last = signature.at(-1) as string;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[(alphabet.indexOf(last) & ~3) + ((alphabet.indexOf(last) + 1) & 3)] as string;
    expect(Buffer.from(`${signature.slice(0, -1)}${sibling}`, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(openRefreshToken(key, `${version}.${payload}.${signature.slice(0, -1)}${sibling}`)).toBeUndefined();
    for (const bad of ['', 'rt1', 'rt1..', 'rt0.a.b', 'not-a-token']) expect(openRefreshToken(key, bad)).toBeUndefined();
  });
});
