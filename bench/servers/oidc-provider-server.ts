import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';
import { reportReady } from '../support/child-server.js';

/**
 * The token benchmark's baseline: oidc-provider (a dev dependency, never a dependency of the
 * platform) issuing client-credentials tokens of the same kind as ours: a JWT
 * access token for one resource server, signed with Ed25519 (EdDSA), typ at+jwt, one hour. The
 * client is the platform store's own client id and secret (RDP_BENCH_CLIENT_ID and _SECRET),
 * authenticated with HTTP Basic, so both servers get byte-for-byte the same request.
 */
const SCOPES = ['read:hierarchy', 'write:hierarchy'];

const { privateKey } = generateKeyPairSync('ed25519');
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'EdDSA', use: 'sig' };

const provider = new Provider('http://127.0.0.1/auth', {
  clients: [
    {
      client_id: process.env.RDP_BENCH_CLIENT_ID,
      client_secret: process.env.RDP_BENCH_CLIENT_SECRET,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: SCOPES.join(' '),
    },
  ],
  clientDefaults: { id_token_signed_response_alg: 'EdDSA' },
  jwks: { keys: [signingKey] },
  scopes: SCOPES,
  routes: { token: '/oauth/token' },
  ttl: { ClientCredentials: 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => 'https://api.rdp.example/',
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({
        scope: SCOPES.join(' '),
        audience: 'rdp-api',
        accessTokenTTL: 3600,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'EdDSA' } },
      }),
    },
  },
});
// The same path as the platform's token endpoint: {auth_url}/oauth/token.
const callback = provider.callback();
const server = http.createServer((request, response) => {
  if (request.url?.startsWith('/auth/')) request.url = request.url.slice('/auth'.length);
  callback(request, response);
});
server.listen(0, '127.0.0.1', () => reportReady((server.address() as { port: number }).port));
