import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { authorizationUrl, codeFromRedirect, createPkce, exchangeCode, type TokenSet } from '@reality-data-platform/sdk';
import { RefusedError } from './cli-errors.js';

export interface LoopbackLoginOptions {
  authUrl: string;
  clientId: string;
  scopes: readonly string[];
  /** Open the system's browser on the consent page (else only print its address). */
  openBrowser: boolean;
  /** Give up waiting for the browser after this long. */
  timeoutMs: number;
  /** Where the consent page's address is shown to the person. */
  say: (line: string) => void;
}

const DONE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rdp: signed in</title></head>
<body><h1>Signed in</h1><p>The command line has its token. You can close this tab.</p></body></html>`;
const FAILED_PAGE = (
  reason: string,
) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rdp: not signed in</title></head>
<body><h1>Not signed in</h1><p>${reason.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</p></body></html>`;

/**
 * The authorization code flow with PKCE of a native application (RFC 8252): a server on a
 * random loopback port receives the redirect, so the code never leaves the machine; the
 * browser shows the platform's own sign-in and consent pages.
 */
export async function loopbackLogin(options: LoopbackLoginOptions): Promise<TokenSet> {
  const pkce = createPkce();
  const server = http.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const redirectUri = `http://127.0.0.1:${port}/callback`;
  try {
    const callback = new Promise<string>((resolve, reject) => {
      server.on('request', (request, response) => {
        const url = new URL(request.url ?? '/', redirectUri);
        if (url.pathname !== '/callback') {
          response.writeHead(404).end();
          return;
        }
        try {
          // RFC 9207: the redirect names the server that issued it; another one's code is not ours.
          const iss = url.searchParams.get('iss');
          if (iss !== null && iss !== options.authUrl) throw new Error(`the redirect came from ${iss}, not ${options.authUrl}`);
          const code = codeFromRedirect(url, pkce.state);
          response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(DONE_PAGE);
          resolve(code);
        } catch (error) {
          response.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(FAILED_PAGE((error as Error).message));
          reject(new RefusedError(`sign-in refused: ${(error as Error).message}`));
        }
      });
    });
    const address = authorizationUrl({
      authUrl: options.authUrl,
      clientId: options.clientId,
      redirectUri,
      scopes: [...options.scopes],
      pkce,
    });
    options.say(`Sign in to the platform in your browser: ${address}`);
    if (options.openBrowser) openInBrowser(address);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new RefusedError(`no sign-in within ${Math.round(options.timeoutMs / 1000)} s; run rdp login again`)),
        options.timeoutMs,
      );
    });
    try {
      const code = await Promise.race([callback, timeout]);
      return await exchangeCode({
        authUrl: options.authUrl,
        clientId: options.clientId,
        code,
        redirectUri,
        verifier: pkce.verifier,
      });
    } finally {
      clearTimeout(timer);
    }
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

/** The system's opener; where there is none (a server, a container) the printed address is the way. */
function openInBrowser(address: string): void {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [address]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '""', address]]
        : ['xdg-open', [address]];
  try {
    const child = spawn(command as string, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // Printed already.
  }
}
