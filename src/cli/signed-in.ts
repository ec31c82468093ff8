import { type ApiClient, createApiClient, RdpApiError, RefreshingTokens } from '@reality-data-platform/sdk';
import { RefusedError } from './cli-errors.js';
import { type Credentials, readCredentials, writeCredentials } from './credentials.js';

/** The signed-in person's typed API client; new tokens of a refresh are stored before they are used. */
export interface SignedIn {
  credentials: Credentials;
  api: ApiClient;
  tokens: RefreshingTokens;
}

export function signedIn(): SignedIn {
  const credentials = readCredentials();
  if (!credentials) throw new RefusedError('not signed in: run rdp login first');
  const tokens = new RefreshingTokens({
    authUrl: credentials.authUrl,
    clientId: credentials.clientId,
    tokens: credentials.tokens,
    onTokens: (fresh) => {
      credentials.tokens = fresh;
      writeCredentials(credentials);
    },
  });
  return { credentials, api: createApiClient({ apiUrl: credentials.apiUrl, tokens }), tokens };
}

/** A refusal of the platform as the command line reports it: exit 1, its body with --json. */
export function refusal(error: unknown): unknown {
  if (error instanceof RdpApiError) {
    const hint = error.error === 'invalid_grant' ? ' (the sign-in has ended: run rdp login again)' : '';
    return new RefusedError(`${error.body.message ?? error.body.error_description ?? error.error}${hint}`, error.body);
  }
  return error;
}
