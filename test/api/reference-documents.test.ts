import fs from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv from 'ajv';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../scripts/openapi-document.js';
import { loadConfig } from '../../src/config/config.js';
import { landingContent } from '../../src/http/landing/landing-routes.js';
import { launchBrowser } from '../support/browser.js';
import { administratorClient, requestToken } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

type Document = {
  servers: { url: string }[];
  paths: Record<string, Record<string, unknown> & { servers?: { url: string }[] }>;
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The address of a page's links and scripts, resolved against the page. */
function references(html: string, page: string): string[] {
  return [...html.matchAll(/(?:src|href|data-url)="([^"]+)"/g)].map((found) => new URL(found[1] ?? '', page).href);
}

async function status(url: string, init?: RequestInit): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer(); // an unread body keeps its connection busy and stalls close()
  return response.status;
}

describe('the OpenAPI documents of the authorization server and SCIM, and the reference pages', () => {
  let t: TestPlatform;
  let browser: Browser;

  beforeAll(async () => {
    t = await startPlatform();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  for (const [name, prefix] of [
    ['authorization server', '/auth'],
    ['SCIM', '/scim/v2'],
  ] as const) {
    it(`the ${name}'s document is valid OpenAPI 3.1 and each of its operations is served`, async () => {
      const response = await fetch(`${t.origin}${prefix}/openapi.json`);
      expect(response.status).toBe(200);
      const document = (await response.json()) as Document;
      const result = await new Validator().validate(structuredClone(document));
      expect(result.errors).toBeUndefined();
      expect(document.servers[0]?.url).toBe(`${t.origin}${prefix}`);
      const operations = Object.entries(document.paths).flatMap(([path, item]) =>
        METHODS.filter((method) => item[method]).map((method) => ({ path, method, server: item.servers?.[0]?.url })),
      );
      expect(operations.length).toBeGreaterThan(4);
      for (const { path, method, server } of operations) {
        const url = `${server ?? document.servers[0]?.url}${path.replace('{id}', 'unknown')}`;
        // Without credentials: anything but a missing route (401, 400, 404 of an unknown id in SCIM's shape...).
        const answered = await fetch(url, { method: method.toUpperCase(), redirect: 'manual' });
        const body = await answered.text();
        const routeMissing = answered.status === 404 && body.includes('Route ');
        expect(routeMissing, `${method.toUpperCase()} ${url}: ${answered.status} ${body}`).toBe(false);
      }
    });
  }

  it('the main operations show an example body, and the authorization server its token and api-info answers', async () => {
    type Operation = { operationId?: string; requestBody?: { content: Record<string, { example?: unknown }> } };
    const regional = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, Operation>> };
    const withExamples = Object.values(regional.paths)
      .flatMap((item) => Object.values(item))
      .filter((operation) => operation.requestBody?.content['application/json']?.example !== undefined)
      .map((operation) => operation.operationId);
    for (const operationId of [
      'createDivision',
      'createSite',
      'initiateSiteFile',
      'finalizeSiteFile',
      'addUploadSessionFile',
      'finalizeUploadSession',
      'startProcessing',
      'createPointOfInterest',
    ]) {
      expect(withExamples).toContain(operationId);
    }
    const auth = (await (await fetch(`${t.authUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { example?: unknown }> }> }>>;
    };
    expect(auth.paths['/oauth/token']?.post?.responses[200]?.content['application/json']?.example).toBeDefined();
    expect(auth.paths['/oauth/api-info']?.get?.responses[200]?.content['application/json']?.example).toBeDefined();
  });

  it("the authorization server's real token and api-info answers are what its document says", async () => {
    const document = (await (await fetch(`${t.authUrl}/openapi.json`)).json()) as {
      components: { schemas: Record<string, object> };
    };
    const ajv = new Ajv.default({ strict: false });
    const orgId = (await t.admin.createOrganization({ name: 'Documented', region: 'eu' })).id;
    const basic = await administratorClient(t.admin, orgId, 'Reader', ['read:hierarchy']);
    const token = await requestToken(t, { grant_type: 'client_credentials' }, basic);
    expect(token.status).toBe(200);
    const tokenSchema = { ...document.components.schemas.TokenResponse, additionalProperties: false };
    expect(ajv.validate(tokenSchema, token.body), ajv.errorsText()).toBe(true);
    const info = await fetch(`${t.authUrl}/oauth/api-info`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    const apiInfoSchema = { ...document.components.schemas.ApiInfo, additionalProperties: false };
    expect(ajv.validate(apiInfoSchema, await info.json()), ajv.errorsText()).toBe(true);
  });

  it("each reference page (a region's, the authorization server's, SCIM's) loads its script and its document", async () => {
    for (const page of [
      `${t.regionUrl('eu')}/docs`,
      `${t.regionUrl('ca')}/docs/`,
      `${t.authUrl}/docs`,
      `${t.origin}/scim/v2/docs`,
    ]) {
      const response = await fetch(page);
      expect(response.status, page).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const assets = references(await response.text(), page);
      expect(assets.some((asset) => asset.endsWith('/openapi.json'))).toBe(true);
      expect(assets.some((asset) => asset.endsWith('/docs/scalar.js'))).toBe(true);
      for (const asset of assets) expect(await status(asset), asset).toBe(200);
    }
  });

  it('renders the regional reference in a browser with nothing blocked and nothing fetched from elsewhere', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const elsewhere: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${message.text()} ${message.location().url}`);
    });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith(t.origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
    });
    await page.goto(`${t.regionUrl('eu')}/docs`);
    await page.getByText('Create a site').first().waitFor({ timeout: 30_000 });
    await page.close();
    expect(problems).toEqual([]);
    expect(elsewhere).toEqual([]);
  }, 60_000);

  it('a browser opening the address gets the landing page, and each of its links answers', async () => {
    for (const address of [`${t.origin}/`, t.authUrl, `${t.authUrl}/`]) {
      const response = await fetch(address);
      expect(response.status, address).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toContain('Reality Data Platform');
      const links = references(html, address);
      for (const expected of ['/auth/sign-in', '/auth/settings/applications', '/auth/outbox', '/auth/docs', '/scim/v2/docs']) {
        expect(links).toContain(`${t.origin}${expected}`);
      }
      for (const region of ['ca', 'us', 'eu', 'au'] as const) expect(links).toContain(`${t.regionUrl(region)}/docs`);
      // The settings page sends a browser without a session to sign in first.
      for (const link of links) expect([200, 303], link).toContain(await status(link, { redirect: 'manual' }));
    }
  });

  it("an api process's landing page lists its own regions' references; with a mail server, no outbox", () => {
    const content = landingContent(
      loadConfig({
        RDP_ROLES: 'api',
        RDP_REGIONS: 'eu',
        RDP_SMTP_URL: 'smtp://mail.example.com',
        RDP_PUBLIC_URL: 'https://rdp.example.com',
      }),
    );
    expect(content.pages.map((link) => link.label)).toEqual(['Console', 'Sign in', 'Settings']);
    expect(content.references.map((link) => link.url)).toEqual([
      'https://rdp.example.com/eu/reality/docs',
      'https://rdp.example.com/auth/docs',
      'https://rdp.example.com/scim/v2/docs',
    ]);
  });
});
