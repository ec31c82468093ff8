import { createHash } from 'node:crypto';
import { html, SafeHtml } from '../../domain/html.js';

/** Server-rendered pages: one layout around markup made with the escaping `html` template (domain/html.ts). */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.5rem}form{margin:1rem 0}label{display:block;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password],input[type=url],select{width:100%;padding:.5rem;box-sizing:border-box}
button{padding:.5rem 1rem;margin-right:.5rem}.error{color:#a40e26;background:#ffebe9;padding:.75rem;border-radius:4px}
.secret{font-family:monospace;background:#f6f8fa;padding:.5rem;word-break:break-all}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.4rem;border-bottom:1px solid #d0d7de}`;

const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE).digest('base64')}`;

/** A whole page. Styles are inline so that the strict Content-Security-Policy needs no exception for files. */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Reality Data Platform</title><style>${new SafeHtml(STYLE)}</style></head>
<body><main>${body}</main></body>
</html>`.value;
}

/** A page that only says what went wrong: refused forms, dead links. */
export function errorPage(title: string, message: string): string {
  return page(title, html`<h1>${title}</h1><p class="error" role="alert">${message}</p>`);
}

/** Headers every page sends: no framing (clickjacking), no caching, nothing loaded from elsewhere. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'x-frame-options': 'DENY',
  // The one inline stylesheet is allowed by its hash; a consent form's 303 may go to any registered redirect URI.
  'content-security-policy': `default-src 'none'; style-src '${STYLE_HASH}'; form-action 'self' http: https:; frame-ancestors 'none'; base-uri 'none'`,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;
