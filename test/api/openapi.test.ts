import fs from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatOpenApiDocument, generateOpenApiDocument, OPENAPI_FILE } from '../../scripts/openapi-document.js';
import { REGIONS, type Region } from '../../src/domain/regions.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean }[];
  responses?: Record<string, unknown>;
};
type Document = {
  servers: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: { oauth2: { flows: Record<string, { scopes: Record<string, string> }> } } };
  info: { title: string };
};

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Served under the base address but not operations of the API: the document and its page. */
const NOT_OPERATIONS = /^\/(openapi\.json|docs(\/.*)?)$/;

/** Path parameters (a final wildcard `*` too) become `{}` so served routes and document keys compare. */
const shape = (path: string) =>
  path
    .replace(/\{[^}]+\}/g, '{}')
    .replace(/:[^/]+/g, '{}')
    .replace(/\/\*$/, '/{}');

/**
 * Every route the server answers under a prefix, as "METHOD /path", read from Fastify's own
 * route tree (printed with its shared prefixes: the flat print loses a wildcard route's path);
 * HEAD routes that Fastify adds beside each GET are left out.
 */
function servedRoutes(app: FastifyInstance, prefix: string): Set<string> {
  const routes = new Set<string>();
  const segments: string[] = [];
  for (const line of app.printRoutes().split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    segments.length = depth;
    segments.push(match[2] ?? '');
    const path = segments.join('');
    if (!match[3] || !path.startsWith(`${prefix}/`)) continue;
    const methods = match[3].split(', ');
    for (const method of methods) {
      if (method === 'HEAD' && methods.includes('GET')) continue;
      routes.add(`${method} ${shape(path.slice(prefix.length))}`);
    }
  }
  return routes;
}

function operations(document: Document) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation, name: `${method.toUpperCase()} ${path}` })),
  );
}

describe('the OpenAPI document of each regional API', () => {
  let t: TestPlatform;
  const documents = {} as Record<Region, Document>;

  beforeAll(async () => {
    t = await startPlatform();
    for (const region of REGIONS) {
      const response = await fetch(`${t.regionUrl(region)}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      documents[region] = (await response.json()) as Document;
    }
  });
  afterAll(() => t.close());

  it('is a valid OpenAPI 3.1 document in every region', async () => {
    for (const region of REGIONS) {
      const validator = new Validator();
      const result = await validator.validate(structuredClone(documents[region]));
      expect(result.errors, `${region}: ${JSON.stringify(result.errors)}`).toBeUndefined();
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');
    }
  });

  it('documents every route the regional API serves, and nothing it does not serve', () => {
    for (const region of REGIONS) {
      const prefix = new URL(t.regionUrl(region)).pathname;
      const served = [...servedRoutes(t.app, prefix)].filter((route) => !NOT_OPERATIONS.test(route.split(' ')[1] ?? ''));
      const documented = operations(documents[region]).map(({ method, path }) => `${method.toUpperCase()} ${shape(path)}`);
      expect(served.length).toBeGreaterThan(10);
      expect(new Set(documented)).toEqual(new Set(served));
    }
  });

  it('declares each path parameter of a path key as a required parameter', () => {
    for (const { path, operation, name } of operations(documents.eu)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((found) => found[1]).sort();
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
      expect(declared.map((parameter) => parameter.name).sort(), name).toEqual(inPath);
      expect(
        declared.every((parameter) => parameter.required === true),
        name,
      ).toBe(true);
    }
  });

  it('gives every operation a unique operationId, tags, a summary, a success response and exactly one OAuth scope', () => {
    const flows = Object.values(documents.eu.components.securitySchemes.oauth2.flows);
    expect(flows.length).toBeGreaterThan(0);
    const operationIds = new Set<string>();
    for (const { operation, name } of operations(documents.eu)) {
      expect(operation.operationId, name).toMatch(/^[a-z][A-Za-z]+$/);
      expect(operationIds.has(operation.operationId as string), `${name}: duplicate operationId`).toBe(false);
      operationIds.add(operation.operationId as string);
      expect(operation.tags?.length, name).toBeGreaterThan(0);
      expect(operation.summary, name).toMatch(/\S/);
      expect(
        Object.keys(operation.responses ?? {}).some((status) => /^2/.test(status)),
        name,
      ).toBe(true);
      expect(operation.security, name).toHaveLength(1);
      const requirement = operation.security?.[0] ?? {};
      expect(Object.keys(requirement), name).toEqual(['oauth2']);
      expect(requirement.oauth2, name).toHaveLength(1);
      for (const flow of flows) expect(Object.keys(flow.scopes), name).toContain(requirement.oauth2?.[0]);
    }
  });

  it('describes every tag that an operation uses', () => {
    const described = new Map((documents.eu.tags ?? []).map((tag) => [tag.name, tag.description]));
    const used = new Set(operations(documents.eu).flatMap(({ operation }) => operation.tags ?? []));
    expect(used.size).toBeGreaterThan(0);
    for (const tag of used) expect(described.get(tag), tag).toMatch(/\S/);
  });

  it('keys paths without the service prefix; each region names its own base address as the server', () => {
    for (const region of REGIONS) {
      const document = documents[region];
      for (const path of Object.keys(document.paths)) {
        expect(path).toMatch(/^\/v1\//);
        expect(path).not.toContain('/reality');
      }
      expect(document.servers[0]?.url).toBe(t.regionUrl(region));
      // The regions publish the same operations; only the title and the server differ.
      const { servers: _s, info: _i, ...rest } = document;
      const { servers: _es, info: _ei, ...eu } = documents.eu;
      expect(rest).toEqual(eu);
    }
  });

  it('serves an API reference page whose script and document load, with and without a trailing slash', async () => {
    for (const page of [`${t.regionUrl('au')}/docs`, `${t.regionUrl('au')}/docs/`]) {
      const response = await fetch(page);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      const assets = [...html.matchAll(/(?:src|data-url)="([^"]+)"/g)].map((found) => new URL(found[1] ?? '', page).href);
      expect(assets).toHaveLength(2);
      for (const asset of assets) {
        const loaded = await fetch(asset);
        await loaded.arrayBuffer(); // an unread body keeps its connection busy and stalls close()
        expect(loaded.status, asset).toBe(200);
      }
      const documentOfPage = await fetch(assets.find((asset) => asset.endsWith('/openapi.json')) ?? '');
      expect(((await documentOfPage.json()) as Document).servers[0]?.url).toBe(t.regionUrl('au'));
    }
  });
});

describe('the committed openapi/openapi.json', () => {
  it('is what the code generates (after changing routes or schemas, run `npm run openapi`)', async () => {
    const generated = formatOpenApiDocument(await generateOpenApiDocument());
    const committed = fs.existsSync(OPENAPI_FILE) ? fs.readFileSync(OPENAPI_FILE, 'utf8') : '';
    expect(committed === generated, 'openapi/openapi.json is out of date: run `npm run openapi` and commit it').toBe(true);
    const result = await new Validator().validate(JSON.parse(committed));
    expect(result.errors).toBeUndefined();
  });
});
