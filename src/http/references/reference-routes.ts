import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { html } from '../../domain/html.js';

/**
 * Scalar's standalone browser bundle, served from node_modules (no CDN): one file that renders
 * an OpenAPI document as an API reference with request examples and a request sender.
 */
const SCALAR_BUNDLE = path.join(
  path.dirname(path.dirname(createRequire(import.meta.url).resolve('@scalar/api-reference'))),
  'dist/browser/standalone.js',
);

/**
 * The reference page may load only its own script; styles are injected by the bundle at run
 * time (inline), fonts are the system's (withDefaultFonts off), and requests sent from it go to
 * the platform's own origin: nothing is fetched from elsewhere.
 */
const REFERENCE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-cache',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * System fonts; and none of Scalar's hosted services, which a self-hosted platform neither has
 * nor should send its documents to: the AI agent, MCP generation, the developer toolbar
 * (configure, share, deploy), shown by default on localhost.
 */
const SCALAR_CONFIGURATION = JSON.stringify({
  withDefaultFonts: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
});

/** The page of one document: the bundle finds the document's address in #api-reference. */
export function referencePage(title: string, documentUrl: string, scriptUrl: string): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · API reference</title><link rel="icon" href="data:,"></head>
<body>
<script id="api-reference" type="application/json" data-url="${documentUrl}" data-configuration="${SCALAR_CONFIGURATION}"></script>
<script src="${scriptUrl}"></script>
</body>
</html>`.value;
}

export interface ReferenceOptions {
  title: string;
  /** The public path of the plugin's prefix (it may differ from the mount prefix behind a proxy). */
  publicPath: string;
  /** The OpenAPI document; built once, on the first request. */
  document(): object | Promise<object>;
}

/**
 * `{prefix}/openapi.json` and its reference page at `{prefix}/docs` (with or without the
 * trailing slash), the bundle at `{prefix}/docs/scalar.js`. Hidden from the documents themselves.
 */
export async function referenceRoutes(app: FastifyInstance, options: ReferenceOptions) {
  const hide = { schema: { hide: true } };
  let document: Promise<object> | undefined;
  app.get('/openapi.json', hide, async () => {
    document ??= Promise.resolve(options.document());
    return document;
  });
  const base = options.publicPath.replace(/\/$/, '');
  const body = referencePage(options.title, `${base}/openapi.json`, `${base}/docs/scalar.js`);
  for (const url of ['/docs', '/docs/']) {
    app.get(url, hide, async (_request, reply) => reply.headers(REFERENCE_HEADERS).send(body));
  }
  app.get('/docs/scalar.js', hide, async (_request, reply) =>
    reply
      .type('text/javascript; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .header('x-content-type-options', 'nosniff')
      .send(createReadStream(SCALAR_BUNDLE)),
  );
}
