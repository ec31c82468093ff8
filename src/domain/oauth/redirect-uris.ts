/**
 * Redirect URI registration rules (spec: Application registration; RFC 8252 for native apps).
 * Returns a reason when the URI may not be registered.
 */
export function checkRedirectUri(uri: string, native: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return `redirect URI "${uri}" is not an absolute URI`;
  }
  if (uri.includes('#')) return `redirect URI "${uri}" must not have a fragment`;
  if (parsed.search !== '' || uri.includes('?')) return `redirect URI "${uri}" must not have a query string`;
  if (native && isLoopback(parsed)) return null;
  if (parsed.protocol !== 'https:') {
    return native
      ? `redirect URI "${uri}" must be a loopback address (http://127.0.0.1 or http://[::1]) or HTTPS`
      : `redirect URI "${uri}" must use HTTPS`;
  }
  const host = parsed.hostname;
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/i.test(host)) {
    return `redirect URI "${uri}" must use a fully qualified domain name`;
  }
  return null;
}

/** RFC 8252 section 7.3: loopback IP literals, any port; "localhost" is not accepted. */
export function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]');
}
