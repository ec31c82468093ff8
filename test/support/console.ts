import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildConsole } from '../../scripts/build-console.mjs';
import { startPlatform, type TestPlatform } from './start-platform.js';
import { buildViewerForTest } from './viewer-pages.js';

/**
 * The console as a person meets it: opened at /console, signed in on the authorization server's
 * pages (email, password, then the consent page), and back on the console's screen.
 */
export async function signIntoConsole(
  page: Page,
  t: TestPlatform,
  user: { email: string; password: string },
  path = '/console',
): Promise<void> {
  await page.goto(`${t.origin}${path}`);
  await page.waitForSelector('#email');
  await page.fill('#email', user.email);
  await page.fill('#password', user.password);
  await Promise.all([page.waitForURL(/\/auth\/consent\?/), page.click('button[type=submit]')]);
  await page.click('button[value=allow]');
  await page.waitForURL((url) => url.pathname.startsWith('/console') && !url.pathname.startsWith('/console/callback'));
  await page.waitForSelector('main h1');
}

/** A new page in its own browser context (its own cookies and sessionStorage): a second person, or a fresh tab. */
export async function freshPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  return context.newPage();
}

/**
 * A platform serving a console built as `npm run build:console` builds it, into a folder of the
 * test file's own (test files run in parallel; none reads another's half-written build), and
 * the viewer likewise when the twin screens are tested.
 */
export async function startConsolePlatform(
  options: { viewer?: boolean; worker?: boolean; webhooks?: boolean; env?: Record<string, string> } = {},
): Promise<TestPlatform & { consoleSizes: Record<string, { bytes: number; gzipBytes: number }> }> {
  const consoleDir = await mkdtemp(path.join(os.tmpdir(), 'rdp-console-'));
  const [{ sizes }, viewer] = await Promise.all([
    buildConsole(consoleDir),
    options.viewer ? buildViewerForTest() : Promise.resolve(undefined),
  ]);
  const t = await startPlatform(
    { RDP_CONSOLE_ASSETS_DIR: consoleDir, ...(viewer ? { RDP_VIEWER_ASSETS_DIR: viewer.dir } : {}), ...options.env },
    { worker: options.worker, webhooks: options.webhooks },
  );
  return {
    ...t,
    consoleSizes: sizes,
    async close() {
      await t.close();
      await Promise.all([rm(consoleDir, { recursive: true, force: true }), viewer?.remove()]);
    },
  };
}
