import { describe, expect, it } from 'vitest';
import { checkResolvedAddresses, checkWebhookUrl, isNonPublicAddress } from './addresses.js';

describe('webhook address rules', () => {
  it('tells public addresses from the rest, IPv4 and IPv6, embedded IPv4 included', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
      expect(isNonPublicAddress(address), address).toBe(false);
    }
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.127.255.255',
      '0.0.0.0',
      '239.255.255.250',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1%eth0',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      '64:ff9b::a00:1',
      '2001:db8::1',
      'not-an-address',
    ]) {
      expect(isNonPublicAddress(address), address).toBe(true);
    }
    expect(isNonPublicAddress('100.128.0.1')).toBe(false); // just past CGNAT
    expect(isNonPublicAddress('172.32.0.1')).toBe(false); // just past 172.16/12
  });

  it('checks the URL itself: https, no credentials, no fragment, no non-public literal', () => {
    expect(checkWebhookUrl('https://93.184.215.14/x', false)).toMatchObject({ ok: true, literal: true });
    expect(checkWebhookUrl('https://hooks.example.com/x', false)).toMatchObject({
      ok: true,
      literal: false,
      host: 'hooks.example.com',
    });
    expect(checkWebhookUrl('http://hooks.example.com/x', false)).toMatchObject({ ok: false, reason: 'url must use https' });
    expect(checkWebhookUrl('https://a:b@hooks.example.com/x', false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl('https://hooks.example.com/x#y', false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl('https://[::ffff:10.0.0.1]/x', false)).toMatchObject({ ok: false });
    expect(checkWebhookUrl('https://2130706433/x', false)).toMatchObject({ ok: false }); // 127.0.0.1 as one number
    expect(checkWebhookUrl('https://0x7f.1/x', false)).toMatchObject({ ok: false });
    // The setting lifts the rules for development and tests.
    expect(checkWebhookUrl('http://127.0.0.1:8080/x', true)).toMatchObject({ ok: true });
    expect(checkWebhookUrl('ftp://127.0.0.1/x', true)).toMatchObject({ ok: false });
  });

  it('refuses a host name when any address it resolves to is not public', () => {
    expect(checkResolvedAddresses('h', ['93.184.215.14'], false)).toBeUndefined();
    expect(checkResolvedAddresses('h', ['93.184.215.14', '10.0.0.1'], false)).toMatch(
      /resolves to a non-public address \(10\.0\.0\.1\)/,
    );
    expect(checkResolvedAddresses('h', [], false)).toMatch(/does not resolve/);
    expect(checkResolvedAddresses('h', ['127.0.0.1'], true)).toBeUndefined();
  });
});
