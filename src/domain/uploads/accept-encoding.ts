/**
 * Whether an Accept-Encoding header lets the answer be gzip-encoded (RFC 9110 section 12.5.3):
 * `gzip` (or `x-gzip`) or `*` listed without `q=0`. No header at all means any coding is
 * acceptable, but the answer then goes as it is stored only to clients that say so: a client
 * that sends no Accept-Encoding gets the bytes decoded.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const listed = new Map<string, number>();
  for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name, ...parameters] = item.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = parameters.map((parameter) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(parameter)?.[1]).find(Boolean);
    listed.set(name, q === undefined ? 1 : Number(q));
  }
  const gzip = listed.get('gzip') ?? listed.get('x-gzip') ?? listed.get('*');
  return gzip !== undefined && gzip > 0;
}
