import { SCOPES, type Scope } from '../access/scopes.js';

/**
 * The platform's web console (`/console`, docs/console.md): a public web client (no secret,
 * authorization code with PKCE) that every deployment has from its first start (global migration
 * 0014). Its redirect address is registered relative, `/console/callback`, and read against the
 * deployment's public address (RDP_PUBLIC_URL), which a migration cannot know. It asks for every
 * scope: what a person may do is still decided by their roles on the nodes.
 */
export const CONSOLE_CLIENT = {
  clientId: 'rdp-console',
  name: 'Reality Data Platform console',
  /** Under the public address; the console's page at this path finishes the sign-in. */
  redirectPath: '/console/callback',
  scopes: Object.keys(SCOPES) as Scope[],
  /** Not an organization id (those are UUIDs). */
  orgId: 'platform',
} as const;

/**
 * Registered redirect addresses as the authorization request compares them: an absolute one as
 * it is, a relative one (the console's) under the deployment's public address.
 */
export function registeredRedirectUris(registered: string[], publicUrl: string): string[] {
  return registered.map((uri) => (uri.startsWith('/') ? `${publicUrl.replace(/\/+$/, '')}${uri}` : uri));
}
