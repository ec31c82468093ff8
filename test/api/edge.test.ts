import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Region } from '../../src/domain/regions.js';
import { registerCors } from '../../src/http/plugins/cors.js';
import { registerErrorHandling } from '../../src/http/plugins/errors.js';
import { registerRequestId, requestIdOf } from '../../src/http/plugins/request-id.js';
import { launchBrowser } from '../support/browser.js';
import { type ApiResponse, createOrg, createTree, expectNoInternals, type OrgFixture } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { createScimClient, SCIM_ERROR, type ScimClient } from '../support/scim.js';

/** The HTTP edge: hostile paths and queries, the region of a token, request ids and CORS. */

const APP_ORIGIN = 'http://app.example.test';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectErrorBody(response: ApiResponse, status: number, error?: string) {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({ statusCode: status, error: expect.any(String), message: expect.any(String) });
  if (error) expect(response.body.error).toBe(error);
  expectNoInternals(response.body);
}

async function send(url: string, init: RequestInit = {}): Promise<ApiResponse> {
  const response = await fetch(url, init);
  const text = await response.text();
  const json = (response.headers.get('content-type') ?? '').includes('json') && text;
  return { status: response.status, body: json ? JSON.parse(text) : text, headers: response.headers };
}

/** One raw HTTP/1.1 request: fetch refuses control characters in header values, an attacker does not. */
function rawRequest(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(head));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('the HTTP edge', () => {
  let t: TestPlatform;
  let eu: OrgFixture;
  let us: OrgFixture;
  let tree: Awaited<ReturnType<typeof createTree>>;
  let groupId: string;
  let scim: ScimClient;
  // A page of another origin, for the browser's own CORS check.
  let pageServer: http.Server;
  let pageOrigin: string;
  let otherOrigin: string;

  beforeAll(async () => {
    pageServer = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title>');
    });
    await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(pageServer.address() as net.AddressInfo).port}`;
    // The same page by another name is another origin, one not allowed.
    otherOrigin = `http://localhost:${(pageServer.address() as net.AddressInfo).port}`;
    t = await startPlatform({ RDP_CORS_ORIGINS: `${APP_ORIGIN},${pageOrigin}` });
    [eu, us] = await Promise.all([createOrg(t, { region: 'eu' }), createOrg(t, { region: 'us' })]);
    tree = await createTree(eu);
    const group = await eu.admin.post('/v1/groups', { name: 'Surveyors' });
    groupId = group.body.id;
    scim = (await createScimClient(t, eu)).client;
  });
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => pageServer?.close(resolve));
  });

  describe('a path parameter longer than the router takes (100 characters)', () => {
    const lengths = [101, 10_000];

    it('is 400 BadRequest naming the limit on the regional APIs, whatever the route and method', async () => {
      for (const length of lengths) {
        const long = 'a'.repeat(length);
        const cases: Array<[string, string]> = [
          ['GET', `/v1/nodes/${long}`],
          ['GET', `/v1/nodes/${long}/browse`],
          ['PATCH', `/v1/nodes/${long}`],
          ['DELETE', `/v1/nodes/${long}`],
          ['PATCH', `/v1/nodes/${tree.siteId}/move/${long}`],
          ['GET', `/v1/groups/${long}/users`],
          ['PUT', `/v1/nodes/${tree.siteId}/memberships/${long}`],
          ['DELETE', `/v1/invitations/${long}`],
          ['GET', `/v1/bundles/${long}`],
          ['GET', `/v1/site-files/${long}/download`],
        ];
        for (const [method, path] of cases) {
          const response = await eu.admin.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});
          expectErrorBody(response, 400, 'BadRequest');
          expect(response.body.message).toMatch(/100 characters/);
          expect(response.headers.get('x-request-id')).toMatch(UUID);
        }
        // Where no route takes a parameter, the path is simply unknown.
        expectErrorBody(await eu.admin.get(`/v1/nothing-here/${long}`), 404, 'Not Found');
      }
    });

    it('is 400 on /auth and /blob, and a SCIM error on /scim/v2', async () => {
      for (const length of lengths) {
        const long = 'a'.repeat(length);
        expectErrorBody(await send(`${t.authUrl}/invitations/${long}`), 400, 'BadRequest');
        expectErrorBody(await send(`${t.authUrl}/oauth/${long}`), 404, 'Not Found');
        // The blob endpoint takes its key as a wildcard: the signature refuses it.
        expect((await send(`${t.origin}/blob/${long}`)).status).toBe(403);
        for (const path of [`/Users/${long}`, `/Groups/${long}`]) {
          const response = await scim.get(path);
          expect(response.status).toBe(400);
          expect(response.headers.get('content-type')).toMatch(/^application\/scim\+json/);
          expect(response.body).toMatchObject({ schemas: [SCIM_ERROR], status: '400' });
        }
      }
    });
  });

  describe('offset and limit', () => {
    const bad = ['1e20', 'Infinity', '99999999999999999999', '-1', '1.5', 'NaN', '1000000001'];

    function listRoutes() {
      return [
        '/v1/trash',
        '/v1/users',
        '/v1/groups',
        `/v1/groups/${groupId}/users`,
        '/v1/invitations',
        '/v1/audit-events',
        '/v1/nodes/search',
        `/v1/nodes/${tree.siteId}/browse`,
        `/v1/nodes/${eu.orgId}/memberships`,
      ];
    }

    it('are bounded on every list route: 400 ValidationError naming the field, never a 500', async () => {
      for (const route of listRoutes()) {
        for (const field of ['offset', 'limit']) {
          for (const value of bad) {
            const response = await eu.admin.get(`${route}?${field}=${encodeURIComponent(value)}`);
            expectErrorBody(response, 400, 'ValidationError');
            expect(response.body.message, `${route} ${field}=${value}`).toContain(`querystring.${field}`);
          }
        }
      }
    });

    it('take the largest offset allowed (an empty page), and a limit above 500 is clamped', async () => {
      for (const route of listRoutes()) {
        const far = await eu.admin.get(`${route}?offset=1000000000`);
        expect(far.status, route).toBe(200);
        expect(Array.isArray(far.body) ? far.body : far.body.items, route).toEqual([]);
        expect((await eu.admin.get(`${route}?limit=1000000000`)).status, route).toBe(200);
      }
    });

    it('SCIM startIndex and count are bounded too (RFC 7644 invalidValue)', async () => {
      for (const resource of ['/Users', '/Groups']) {
        for (const query of ['startIndex=1e20', 'startIndex=99999999999999999999', 'count=Infinity', 'count=1.5']) {
          const response = await scim.get(`${resource}?${query}`);
          expect(response.status, `${resource}?${query}`).toBe(400);
          expect(response.body).toMatchObject({ schemas: [SCIM_ERROR], scimType: 'invalidValue' });
        }
        expect((await scim.get(`${resource}?startIndex=999999999`)).body.Resources).toEqual([]);
      }
    });
  });

  describe('a token of an organization of another region', () => {
    const routes = (org: OrgFixture) => ['/v1/users/me', '/v1/roles', `/v1/nodes/${org.orgId}`, '/v1/trash', '/v1/users'];

    it('is 421 OrganizationInAnotherRegion with the apiUrl of its region, on every other region', async () => {
      for (const region of ['eu', 'ca', 'au'] as Region[]) {
        const elsewhere = us.admin.withToken(us.admin.token);
        for (const path of routes(us)) {
          const response = await send(`${t.regionUrl(region)}${path}`, {
            headers: { authorization: `Bearer ${elsewhere.token}` },
          });
          expectErrorBody(response, 421, 'OrganizationInAnotherRegion');
          expect(response.body.apiUrl).toBe(t.regionUrl('us'));
          expect(response.headers.get('www-authenticate')).toBeNull();
        }
        // A write is refused alike and changes nothing.
        const create = await send(`${t.regionUrl(region)}/v1/nodes/${us.orgId}/division`, {
          method: 'POST',
          headers: { authorization: `Bearer ${us.admin.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Nope' }),
        });
        expectErrorBody(create, 421, 'OrganizationInAnotherRegion');
      }
      expect((await us.admin.get(`/v1/nodes/${us.orgId}/browse`)).body).toEqual([]);
    });

    it('is served in its own region, and an eu token is refused on us', async () => {
      for (const path of routes(us)) expect((await us.admin.get(path)).status, path).toBe(200);
      for (const path of routes(eu)) expect((await eu.admin.get(path)).status, path).toBe(200);
      const response = await send(`${t.regionUrl('us')}/v1/users/me`, { headers: { authorization: `Bearer ${eu.admin.token}` } });
      expectErrorBody(response, 421, 'OrganizationInAnotherRegion');
      expect(response.body.apiUrl).toBe(t.regionUrl('eu'));
      // A bad token is still 401 wherever it is sent.
      const bad = await send(`${t.regionUrl('us')}/v1/users/me`, { headers: { authorization: 'Bearer nope' } });
      expect(bad.status).toBe(401);
    });
  });

  describe('X-Request-Id', () => {
    it('is taken from the request when it is safe, and answered on every kind of response', async () => {
      const urls: Array<[string, RequestInit?]> = [
        [`${t.regionUrl('eu')}/v1/nodes/${tree.siteId}`, { headers: { authorization: `Bearer ${eu.admin.token}` } }],
        [`${t.regionUrl('eu')}/v1/nodes/${tree.siteId}`],
        [`${t.regionUrl('eu')}/v1/nothing-here`],
        [`${t.regionUrl('eu')}/v1/nodes/${tree.siteId}/browse`, { method: 'DELETE' }],
        [`${t.regionUrl('eu')}/v1/nodes/%ZZ`],
        [`${t.regionUrl('eu')}/v1/nodes/${'a'.repeat(101)}`],
        [`${t.authUrl}/oauth/jwks`],
        [`${t.authUrl}/oauth/token`, { method: 'POST' }],
        [`${t.authUrl}/sign-in`],
        [`${t.origin}/.well-known/oauth-authorization-server/auth`],
        [`${t.origin}/scim/v2/Users`],
        [`${t.origin}/blob/some/key`],
        [`${t.origin}/health`],
      ];
      for (const [url, init = {}] of urls) {
        const id = `client-${randomUUID()}:1.a_b`;
        const headers = { ...(init.headers as Record<string, string>), 'x-request-id': id };
        const echoed = await fetch(url, { ...init, headers });
        expect(echoed.headers.get('x-request-id'), url).toBe(id);
        const generated = await fetch(url, init);
        expect(generated.headers.get('x-request-id'), url).toMatch(UUID);
      }
    });

    it('replaces an id that is too long or carries other characters by a generated one', async () => {
      const url = `${t.regionUrl('eu')}/v1/nodes/${tree.siteId}`;
      for (const id of ['x'.repeat(129), 'x'.repeat(10_000), 'a b', '<script>', 'é', 'a/b', '"quoted"', 'a,b']) {
        const response = await fetch(url, { headers: { 'x-request-id': id } });
        expect(response.headers.get('x-request-id'), id.slice(0, 20)).toMatch(UUID);
      }
      expect((await fetch(url, { headers: { 'x-request-id': 'x'.repeat(128) } })).headers.get('x-request-id')).toBe(
        'x'.repeat(128),
      );
      // Control characters, which fetch would not send: the answer's header is a fresh id.
      const port = Number(new URL(t.origin).port);
      for (const id of ['a\tb', 'a\u0001b', 'a\u007fb']) {
        const answer = await rawRequest(
          port,
          `GET /eu/reality/v1/users/me HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n`,
        );
        const header = /\r\nx-request-id: ([^\r\n]*)\r\n/i.exec(answer)?.[1];
        expect(header, `${JSON.stringify(id)}: ${answer}`).toMatch(UUID);
        expect(answer).toMatch(/^HTTP\/1\.1 (200|400|401) /);
      }
    });

    it("names the request in the log lines (the id the header echoes is the logger's reqId)", async () => {
      // The platform's tests run without a logger: a server with the same two pieces shows the log.
      const lines: Array<{ reqId?: string }> = [];
      const app = Fastify({
        logger: { level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line)) } },
        genReqId: requestIdOf,
      });
      registerRequestId(app);
      app.get('/', async (request) => {
        request.log.info('handled');
        return {};
      });
      try {
        const answer = await app.inject({ url: '/', headers: { 'x-request-id': 'trace-42' } });
        expect(answer.headers['x-request-id']).toBe('trace-42');
        expect(lines.filter((line) => line.reqId === 'trace-42').length).toBeGreaterThanOrEqual(3);
      } finally {
        await app.close();
      }
    });
  });

  describe('CORS', () => {
    const corsUrls = () => [
      `${t.regionUrl('eu')}/v1/nodes/${tree.siteId}`,
      `${t.regionUrl('au')}/v1/users/me`,
      `${t.authUrl}/oauth/token`,
      `${t.authUrl}/oauth/api-info`,
      `${t.authUrl}/oauth/jwks`,
      `${t.origin}/.well-known/oauth-authorization-server/auth`,
      `${t.origin}/blob/some/key?expires=1`,
    ];

    function preflight(url: string, origin: string, method = 'GET', headers = 'authorization') {
      return fetch(url, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers },
      });
    }

    it('answers a preflight of an allowed origin with 204 and the allowed methods and headers', async () => {
      for (const url of corsUrls()) {
        const response = await preflight(url, APP_ORIGIN, 'POST', 'authorization,content-type,idempotency-key');
        expect(response.status, url).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
        const methods = response.headers.get('access-control-allow-methods')?.split(/,\s*/) ?? [];
        expect(methods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
        const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
        expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-none-match']));
        expect(Number(response.headers.get('access-control-max-age'))).toBeGreaterThan(0);
        expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      }
    });

    it('lets the allowed origin read answers and their headers, errors included', async () => {
      const ok = await fetch(`${t.regionUrl('eu')}/v1/nodes/${tree.siteId}`, {
        headers: { origin: APP_ORIGIN, authorization: `Bearer ${eu.admin.token}` },
      });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      const exposed = (ok.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
      expect(exposed).toEqual(
        expect.arrayContaining([
          'ratelimit-limit',
          'ratelimit-remaining',
          'ratelimit-reset',
          'retry-after',
          'etag',
          'x-request-id',
          'location',
        ]),
      );
      for (const [url, status] of [
        [`${t.regionUrl('eu')}/v1/nodes/${tree.siteId}`, 401],
        [`${t.regionUrl('eu')}/v1/nothing-here`, 404],
        [`${t.authUrl}/oauth/api-info`, 401],
      ] as const) {
        const refused = await fetch(url, { headers: { origin: APP_ORIGIN } });
        expect(refused.status, url).toBe(status);
        expect(refused.headers.get('access-control-allow-origin'), url).toBe(APP_ORIGIN);
      }
      const token = await fetch(`${t.authUrl}/oauth/token`, {
        method: 'POST',
        headers: { origin: APP_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=nobody&client_secret=x',
      });
      expect(token.status).toBe(401);
      expect(token.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    });

    it('gives no CORS header to another origin, nor on the pages, and never answers a preflight 405', async () => {
      for (const url of corsUrls()) {
        const response = await preflight(url, 'http://evil.example.test');
        expect(response.status, url).toBe(204);
        for (const name of response.headers.keys()) expect(name, url).not.toMatch(/^access-control-/);
        const actual = await fetch(url, { headers: { origin: 'http://evil.example.test' } });
        for (const name of actual.headers.keys()) expect(name, url).not.toMatch(/^access-control-/);
      }
      for (const url of [`${t.authUrl}/sign-in`, `${t.authUrl}/settings/applications`, `${t.authUrl}/consent`]) {
        const response = await preflight(url, APP_ORIGIN, 'POST');
        expect(response.status, url).toBe(204);
        for (const name of response.headers.keys()) expect(name, url).not.toMatch(/^access-control-/);
        const page = await fetch(url, { headers: { origin: APP_ORIGIN }, redirect: 'manual' });
        expect(page.headers.get('access-control-allow-origin'), url).toBeNull();
      }
    });

    it('works from a page of an allowed origin in chromium, and not from another', async () => {
      const browser = await launchBrowser();
      try {
        const page = await browser.newPage();
        await page.goto(`${pageOrigin}/`);
        const call = (url: string, token: string) =>
          page.evaluate(
            async ([target, bearer]) => {
              try {
                const response = await fetch(target as string, {
                  method: 'PATCH',
                  headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ name: 'Renamed from a browser' }),
                });
                return { status: response.status, requestId: response.headers.get('x-request-id'), body: await response.json() };
              } catch (error) {
                return { error: String(error) };
              }
            },
            [url, token],
          );
        const renamed = await call(`${t.regionUrl('eu')}/v1/nodes/${tree.folderId}`, eu.admin.token as string);
        expect(renamed).toMatchObject({
          status: 200,
          requestId: expect.stringMatching(UUID),
          body: { name: 'Renamed from a browser' },
        });

        const other = await browser.newPage();
        await other.goto(`${otherOrigin}/`);
        const refused = await other.evaluate(
          async (target) => {
            try {
              await fetch(target, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{}' });
              return 'read';
            } catch {
              return 'blocked';
            }
          },
          `${t.regionUrl('eu')}/v1/nodes/${tree.folderId}`,
        );
        expect(refused).toBe('blocked');
      } finally {
        await browser.close();
      }
    });
  });
});

describe('CORS when no origin is configured', () => {
  it('adds no CORS header, and a preflight is still not 405', async () => {
    // The platform's wiring is registerCors(app, config.corsOrigins); an empty list is CORS off.
    const app = Fastify({ logger: false });
    registerErrorHandling(app);
    await registerCors(app, []);
    app.get('/eu/reality/v1/users/me', async () => ({}));
    try {
      const url = '/eu/reality/v1/users/me';
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: APP_ORIGIN, 'access-control-request-method': 'GET' },
      });
      expect(preflight.statusCode).toBe(204);
      for (const name of Object.keys(preflight.headers)) expect(name).not.toMatch(/^access-control-/);
      const actual = await app.inject({ url, headers: { origin: APP_ORIGIN } });
      expect(actual.statusCode).toBe(200);
      for (const name of Object.keys(actual.headers)) expect(name).not.toMatch(/^access-control-/);
      // A bare OPTIONS is what it was: 405 with Allow.
      const bare = await app.inject({ method: 'OPTIONS', url });
      expect(bare.statusCode).toBe(405);
    } finally {
      await app.close();
    }
  });
});
