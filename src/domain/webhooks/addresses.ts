import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may point (docs/webhooks.md, "Addresses"): HTTPS, no credentials, and a host
 * that is not, and does not resolve to, a private, loopback, link-local, CGNAT, multicast,
 * reserved or unspecified address. `allowPrivate` (RDP_WEBHOOK_ALLOW_PRIVATE, development and
 * tests) also allows http and every address. node:net is pure computation here (no I/O).
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", incl. the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  BLOCKED.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64), if any. */
function embeddedIpv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::|::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const value = (Number.parseInt(hex[1] as string, 16) << 16) | Number.parseInt(hex[2] as string, 16);
    return [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');
  }
  return undefined;
}

/** Whether an IP address (v4 or v6 text) is one a webhook may not reach. */
export function isNonPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return BLOCKED.check(bare, 'ipv4');
  if (family !== 6) return true; // not an address at all: nothing to trust
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) return BLOCKED.check(inner, 'ipv4') || BLOCKED.check(bare, 'ipv6');
  return BLOCKED.check(bare, 'ipv6');
}

export type AddressVerdict = { ok: true; url: URL; host: string; literal: boolean } | { ok: false; reason: string };

/**
 * The static checks of an endpoint address: scheme, credentials, and a literal IP host. A host
 * name is checked again once resolved (checkResolvedAddresses), at creation and at each delivery.
 */
export function checkWebhookUrl(raw: string, allowPrivate: boolean): AddressVerdict {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'url is not an absolute URL' };
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return { ok: false, reason: `url must use ${allowPrivate ? 'https or http' : 'https'}` };
  if (url.username || url.password) return { ok: false, reason: 'url must not carry credentials' };
  if (url.hash) return { ok: false, reason: 'url must not have a fragment' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === '') return { ok: false, reason: 'url has no host' };
  const literal = isIP(host) !== 0;
  if (!allowPrivate && literal && isNonPublicAddress(host)) {
    return { ok: false, reason: `url points to a private, loopback or otherwise non-public address (${host})` };
  }
  return { ok: true, url, host, literal };
}

/** The verdict on what a host name resolved to: every address must be public. */
export function checkResolvedAddresses(host: string, addresses: readonly string[], allowPrivate: boolean): string | undefined {
  if (addresses.length === 0) return `url's host ${host} does not resolve`;
  if (allowPrivate) return undefined;
  const blocked = addresses.find(isNonPublicAddress);
  return blocked === undefined ? undefined : `url's host ${host} resolves to a non-public address (${blocked})`;
}
