import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizationUrl, codeFromRedirect, createPkce, exchangeCode } from './pkce.js';
import type { FetchLike, TokenSet } from './token-endpoint.js';

/** A one-shot HTTP listener on the loopback address that a native application's sign-in returns to (RFC 8252). */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`: send it as the redirect_uri. */
  redirectUri: string;
  /** The address the browser came back to (its query carries code and state, or error). */
  redirect: Promise<URL>;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /** The path registered for the native application (default `/callback`). */
  path?: string;
  /** 0 (default) takes a free port: a native application's loopback redirect may use any. */
  port?: number;
  /** Stop waiting after this long (default 5 minutes): `redirect` rejects. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const PAGE = (title: string, text: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body></html>`;

/**
 * Listens on 127.0.0.1 for the browser's return from the consent page. The first request on the
 * path settles `redirect` and answers a short page (the person may close the tab); the listener
 * then closes.
 */
export async function listenForRedirect(options: LoopbackOptions = {}): Promise<LoopbackRedirect> {
  const path = options.path ?? '/callback';
  let settle!: { resolve(url: URL): void; reject(error: unknown): void };
  const redirect = new Promise<URL>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Unhandled until the caller awaits it: a rejection must not crash the process meanwhile.
  redirect.catch(() => undefined);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    if (url.pathname !== path) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      return;
    }
    const failed = url.searchParams.get('error');
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
      .end(
        failed
          ? PAGE('Sign-in not completed', `The platform answered ${escapeHtml(failed)}. You can close this window.`)
          : PAGE('Signed in', 'You can close this window and go back to the application.'),
      );
    settle.resolve(url);
    void close();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const timer = setTimeout(
    () => {
      settle.reject(new Error('No sign-in came back in time'));
      void close();
    },
    options.timeoutMs ?? 5 * 60_000,
  );
  const onAbort = () => {
    settle.reject(options.signal?.reason);
    void close();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    return closing;
  }
  const { port } = server.address() as AddressInfo;
  return { redirectUri: `http://127.0.0.1:${port}${path}`, redirect, close };
}

export interface SignInOptions extends LoopbackOptions {
  authUrl: string;
  clientId: string;
  /** Only when the application was created with one. */
  clientSecret?: string;
  scopes: string[];
  /** Shows the consent page to the person: open a browser at `url`, or print it. */
  openBrowser: (url: string) => void | Promise<void>;
  fetch?: FetchLike;
}

/**
 * The whole sign-in of a native application: PKCE, a loopback redirect, the consent page in the
 * person's browser, the state check and the code exchange. Answers the TokenSet (give it to
 * RefreshingTokens). Throws AuthorizationDeniedError when the person denies.
 */
export async function signInWithBrowser(options: SignInOptions): Promise<TokenSet> {
  const pkce = createPkce();
  const loopback = await listenForRedirect(options);
  try {
    const url = authorizationUrl({ ...options, redirectUri: loopback.redirectUri, pkce });
    await options.openBrowser(url);
    const code = codeFromRedirect(await loopback.redirect, pkce.state);
    return await exchangeCode({ ...options, code, redirectUri: loopback.redirectUri, verifier: pkce.verifier });
  } finally {
    await loopback.close();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
