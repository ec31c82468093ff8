import { lookup } from 'node:dns/promises';
import { checkResolvedAddresses, checkWebhookUrl } from '../../domain/webhooks/addresses.js';

/** An endpoint address checked down to the IP address a delivery connects to. */
export type CheckedAddress = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * The address rules of domain/webhooks/addresses.ts, with the host name resolved: at creation,
 * at update and before every delivery (the name may resolve elsewhere by then: DNS rebinding).
 * The delivery then connects to the address checked here, not to a second resolution.
 */
export async function checkEndpointAddress(raw: string, allowPrivate: boolean): Promise<CheckedAddress> {
  const verdict = checkWebhookUrl(raw, allowPrivate);
  if (!verdict.ok) return verdict;
  if (verdict.literal) return { ok: true, url: verdict.url, address: verdict.host, family: verdict.host.includes(':') ? 6 : 4 };
  let resolved: { address: string; family: number }[];
  try {
    resolved = await lookup(verdict.host, { all: true, verbatim: true });
  } catch {
    resolved = [];
  }
  const refused = checkResolvedAddresses(
    verdict.host,
    resolved.map((entry) => entry.address),
    allowPrivate,
  );
  if (refused) return { ok: false, reason: refused };
  const first = resolved[0] as { address: string; family: number };
  return { ok: true, url: verdict.url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
