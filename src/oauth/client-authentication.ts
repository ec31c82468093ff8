import type { OAuthApplicationRow } from '../adapters/db/schema.js';
import { tokenMatches } from '../crypto/secrets.js';
import { OAuthError } from './oauth-error.js';
import type { ClientDirectory } from './recent-directory.js';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string | undefined;
  /** How the client presented itself: Basic header or form fields. */
  method: 'basic' | 'post' | 'none';
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * Reads the client's credentials from the Basic header (RFC 6749 section 2.3.1: id and secret
 * form-encoded, then base64) or from the form. A malformed Basic header is invalid_client.
 */
export function readClientCredentials(
  authorization: string | undefined,
  form: Record<string, string | undefined>,
): ClientCredentials | undefined {
  if (authorization && /^basic /i.test(authorization)) {
    const encoded = authorization.slice(6).trim();
    const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0)
      throw new OAuthError('invalid_client', 'The Basic authorization header is not base64(client_id:client_secret)');
    try {
      return {
        clientId: formDecode(decoded.slice(0, colon)),
        clientSecret: formDecode(decoded.slice(colon + 1)),
        method: 'basic',
      };
    } catch {
      throw new OAuthError('invalid_client', 'The Basic authorization header is not correctly encoded');
    }
  }
  if (form.client_id) {
    if (form.client_secret !== undefined) return { clientId: form.client_id, clientSecret: form.client_secret, method: 'post' };
    return { clientId: form.client_id, clientSecret: undefined, method: 'none' };
  }
  return undefined;
}

/**
 * The application the credentials belong to. A secret is required exactly when the
 * application has one; every mismatch gets the same answer, so ids cannot be probed.
 */
export async function authenticateClient(
  directory: Pick<ClientDirectory, 'findApplication'>,
  credentials: ClientCredentials | undefined,
): Promise<OAuthApplicationRow> {
  if (!credentials) throw new OAuthError('invalid_client', 'Client authentication is required');
  const application = await directory.findApplication(credentials.clientId);
  const secretOk = application?.secret_hash
    ? credentials.clientSecret !== undefined && tokenMatches(credentials.clientSecret, application.secret_hash)
    : credentials.clientSecret === undefined || credentials.clientSecret === '';
  if (!application || !secretOk) throw new OAuthError('invalid_client', 'Unknown client or wrong client secret');
  return application;
}
