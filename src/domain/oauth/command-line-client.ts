/**
 * The platform's own OAuth client for `rdp login`: a native public client (no secret,
 * authorization code with PKCE on a loopback redirect, RFC 8252) that every deployment has
 * from its first start (global migration 0013, which writes these values), so a newcomer needs no client id. It belongs
 * to no organization (the signing-in person picks theirs on the consent page), so no
 * organization's settings page lists or edits it.
 */
export const COMMAND_LINE_CLIENT = {
  clientId: 'rdp-cli',
  name: 'rdp command line',
  /** The registered loopback address; a native client may use it on any port. */
  redirectUri: 'http://127.0.0.1/callback',
  scopes: ['read:basic', 'read:hierarchy', 'write:hierarchy'],
  /** Not an organization id (those are UUIDs). */
  orgId: 'platform',
} as const;
