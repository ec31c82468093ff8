import { SCOPES } from '../../domain/access/scopes.js';

/**
 * The OpenAPI document of the authorization server at {auth_url} ({publicUrl}/auth): the token
 * endpoint, api-info, the key set, the consent page (the authorization endpoint) and the RFC 8414
 * metadata. Written out rather than generated: the token endpoint takes a form whose fields
 * depend on the grant, which the routes check in code (oauth/grants), not with a schema.
 * test/api/reference-documents.test.ts checks it is valid and that each path answers.
 */
export function authOpenApiDocument(publicUrl: string) {
  const authUrl = `${publicUrl}/auth`;
  const error = { $ref: '#/components/schemas/OAuthError' };
  const json = (schema: object, example?: object) => ({ 'application/json': { schema, ...(example ? { example } : {}) } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'Reality Data Platform authorization server',
      version: '1.0.0',
      description:
        'OAuth 2.0 for the regional APIs: client credentials for services, authorization code with PKCE for people (through the consent page), refresh tokens. After the token, GET /oauth/api-info names the organization and the apiUrl of its region.',
    },
    servers: [{ url: authUrl }],
    tags: [
      { name: 'Tokens', description: 'The token endpoint and the grants it runs' },
      { name: 'Discovery', description: "Who a token is, the API address of its organization's region, keys and metadata" },
      { name: 'Pages', description: 'Pages for people, opened in a browser' },
    ],
    paths: {
      '/oauth/token': {
        post: {
          tags: ['Tokens'],
          operationId: 'requestToken',
          summary: 'Request tokens',
          description:
            'The client authenticates with HTTP Basic (client_id:client_secret) or client_id and client_secret in the form; a public client (no secret) sends client_id alone. Repeated failures answer 429 rate_limited with Retry-After.',
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: { $ref: '#/components/schemas/TokenRequest' },
                examples: {
                  clientCredentials: { summary: 'A service', value: { grant_type: 'client_credentials' } },
                  authorizationCode: {
                    summary: 'The code of the consent page, with the PKCE verifier',
                    value: {
                      grant_type: 'authorization_code',
                      code: 'Sx1…',
                      redirect_uri: 'http://127.0.0.1:53682/callback',
                      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
                      client_id: 'c8a7…',
                    },
                  },
                  refresh: { summary: 'A new access token', value: { grant_type: 'refresh_token', refresh_token: 'rt_…' } },
                },
              },
            },
          },
          responses: {
            200: {
              description: 'Tokens (Cache-Control: no-store)',
              content: json(
                { $ref: '#/components/schemas/TokenResponse' },
                {
                  hasError: false,
                  access_token: 'eyJhbGciOiJSUzI1NiIs…',
                  token_type: 'bearer',
                  expires_in: 2592000,
                  refresh_token: 'rt_…',
                  scope: 'read:hierarchy write:hierarchy',
                  accessToken: 'eyJhbGciOiJSUzI1NiIs…',
                  refreshToken: 'rt_…',
                  expiresIn: 3600,
                },
              ),
            },
            400: { description: 'invalid_request, invalid_grant, invalid_scope, unsupported_grant_type', content: json(error) },
            401: { description: 'invalid_client', content: json(error) },
            415: { description: 'Not a form', content: json(error) },
            429: { description: 'rate_limited: too many failed client authentications; see Retry-After', content: json(error) },
          },
        },
      },
      '/oauth/api-info': {
        get: {
          tags: ['Discovery'],
          operationId: 'getApiInfo',
          summary: "The token's principal, organization, scopes and the apiUrl to call",
          security: [{ bearer: [] }],
          responses: {
            200: {
              description: 'OK',
              content: json(
                { $ref: '#/components/schemas/ApiInfo' },
                {
                  user: { id: '5b0e…', firstName: null, lastName: null, email: null },
                  organization: { id: '0f3c…', name: 'Acme' },
                  scopes: ['read:hierarchy', 'write:hierarchy'],
                  issuedAt: '2026-11-25T09:00:00.000Z',
                  expiresAt: '2026-11-25T10:00:00.000Z',
                  apiUrl: `${publicUrl}/eu/reality`,
                },
              ),
            },
            401: { description: 'not_authenticated or invalid_token', content: json(error) },
          },
        },
      },
      '/oauth/jwks': {
        get: {
          tags: ['Discovery'],
          operationId: 'getKeySet',
          summary: 'The public keys that verify access tokens (JWK Set)',
          security: [],
          responses: {
            200: {
              description: 'The key set; may be cached for 5 minutes',
              content: { 'application/jwk-set+json': { schema: { $ref: '#/components/schemas/KeySet' } } },
            },
          },
        },
      },
      '/consent': {
        get: {
          tags: ['Pages'],
          operationId: 'authorize',
          summary: 'The authorization endpoint: the consent page (authorization code with PKCE)',
          description:
            'Opened in a browser: the person signs in and grants the scopes; the page redirects to redirect_uri with code, state and iss (RFC 9207).',
          security: [],
          parameters: [
            ['response_type', 'code', true],
            ['client_id', 'The application', true],
            ['redirect_uri', 'One of the application’s registered redirect URIs', true],
            ['scopes', 'Space-separated scopes', true],
            ['code_challenge', 'BASE64URL(SHA-256(code_verifier))', true],
            ['code_challenge_method', 'S256', true],
            ['state', 'Returned unchanged', false],
          ].map(([name, description, required]) => ({
            name,
            in: 'query',
            required,
            description,
            schema: { type: 'string' },
          })),
          responses: {
            200: { description: 'The sign-in or consent page', content: { 'text/html': { schema: { type: 'string' } } } },
            303: { description: 'Back to the redirect URI with code or error' },
            400: { description: 'An invalid request that cannot be sent back (unknown client, unregistered redirect URI)' },
          },
        },
      },
      '/.well-known/oauth-authorization-server/auth': {
        servers: [{ url: publicUrl }],
        get: {
          tags: ['Discovery'],
          operationId: 'getAuthorizationServerMetadata',
          summary: 'Authorization server metadata (RFC 8414)',
          security: [],
          responses: { 200: { description: 'OK', content: json({ type: 'object', additionalProperties: true }) } },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of /oauth/token' },
      },
      schemas: {
        TokenRequest: {
          type: 'object',
          required: ['grant_type'],
          properties: {
            grant_type: { type: 'string', enum: ['client_credentials', 'authorization_code', 'refresh_token'] },
            client_id: { type: 'string' },
            client_secret: { type: 'string' },
            scope: { type: 'string', description: `Space-separated, from: ${Object.keys(SCOPES).join(', ')}` },
            code: { type: 'string' },
            redirect_uri: { type: 'string' },
            code_verifier: { type: 'string' },
            refresh_token: { type: 'string' },
          },
        },
        TokenResponse: {
          type: 'object',
          required: ['access_token', 'token_type', 'expires_in', 'scope'],
          properties: {
            hasError: { type: 'boolean' },
            access_token: { type: 'string' },
            token_type: { type: 'string', enum: ['bearer'] },
            expires_in: { type: 'integer', description: "The refresh token's lifetime in seconds (the spec's field)" },
            refresh_token: { type: 'string' },
            scope: { type: 'string' },
            accessToken: { type: 'string' },
            refreshToken: { type: 'string' },
            expiresIn: { type: 'integer', description: "The access token's lifetime in seconds" },
          },
        },
        ApiInfo: {
          type: 'object',
          properties: {
            user: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                firstName: { type: ['string', 'null'] },
                lastName: { type: ['string', 'null'] },
                email: { type: ['string', 'null'] },
              },
            },
            organization: { type: 'object', properties: { id: { type: 'string' }, name: { type: 'string' } } },
            scopes: { type: 'array', items: { type: 'string' } },
            issuedAt: { type: 'string', format: 'date-time' },
            expiresAt: { type: 'string', format: 'date-time' },
            apiUrl: { type: 'string', format: 'uri', description: "The base address of the organization's region" },
          },
        },
        KeySet: {
          type: 'object',
          properties: { keys: { type: 'array', items: { type: 'object', additionalProperties: true } } },
        },
        OAuthError: {
          type: 'object',
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
          additionalProperties: true,
        },
      },
    },
  };
}
