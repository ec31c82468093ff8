/**
 * Screenshots of the console's main screens for docs/console.md, taken of a real platform (with
 * its worker and the viewer) seeded with a believable organization, in Debian's chromium:
 *
 *   npx tsx scripts/console-screenshots.ts        (or npm run console:screenshots)
 *   npx tsx scripts/console-screenshots.ts comparison.png twin.png     (only those)
 *
 * Writes docs/console/*.png at 1280x800 (a long screen taller), one at a tablet's 768 px. Nothing is mocked: a screen
 * that fails to load fails the script rather than leaving a picture of an error.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../test/support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../test/support/console.js';
import { type DemoOrganization, seedDemoOrganization } from './console-demo-organization.js';

const OUT = fileURLToPath(new URL('../docs/console/', import.meta.url));
const LAPTOP = { width: 1280, height: 800 };
const TABLET = { width: 768, height: 1024 };

interface Shot {
  file: string;
  path: (demo: DemoOrganization) => string;
  /** What shows that the screen has what the picture is for (beyond no "Loading…" left). */
  ready: (page: Page) => Promise<unknown>;
  /** The part of a long screen the picture is for, scrolled to the top of the view. */
  scrollTo?: string;
  viewport?: { width: number; height: number };
}

const text = (page: Page, selector: string, hasText: string) => page.locator(selector, { hasText }).first().waitFor();

const SHOTS: Shot[] = [
  { file: 'data.png', path: () => '/console', ready: (page) => text(page, 'main', 'North Sea terminals') },
  {
    file: 'site-uploads.png',
    path: (demo) => `/console/nodes/${demo.siteId}`,
    ready: (page) => page.locator('.storage-use').waitFor(),
    scrollTo: '#uploads-heading',
  },
  {
    file: 'bundle-processed.png',
    path: (demo) => `/console/nodes/${demo.bundleId}`,
    ready: (page) => text(page, '.bundle-panel', 'Processing'),
  },
  { file: 'twin.png', path: (demo) => `/console/twins/${demo.siteId}`, ready: viewerShowsScan },
  {
    file: 'comparison.png',
    path: (demo) => `/console/twins/${demo.pierId}/comparisons/${demo.comparisonId}`,
    ready: (page) => page.locator('svg.histogram').waitFor(),
    viewport: { width: 1280, height: 1100 },
  },
  {
    file: 'library.png',
    path: () => '/console/library',
    ready: (page) => page.locator('img.thumbnail').nth(1).waitFor(),
  },
  {
    file: 'model.png',
    path: (demo) => `/console/library/models/${demo.modelId}`,
    ready: (page) => page.locator('img.thumbnail').first().waitFor(),
  },
  { file: 'people.png', path: () => '/console/people', ready: (page) => text(page, 'main', 'lena.hoffmann@nordhafen.example') },
  { file: 'groups.png', path: (demo) => `/console/people/groups/${demo.groupId}`, ready: (page) => text(page, 'main', 'Amira') },
  {
    file: 'audit.png',
    path: () => '/console/people/audit',
    ready: (page) => page.locator('main table tbody tr').nth(2).waitFor(),
  },
  {
    file: 'tablet-site.png',
    path: (demo) => `/console/nodes/${demo.siteId}`,
    ready: (page) => text(page, 'main', 'Quay scan, station 1'),
    viewport: TABLET,
  },
];

/** The framed viewer has read the twin, then a moment for the tiles to paint. */
async function viewerShowsScan(page: Page) {
  await page.locator('.viewer-status', { hasText: '3D view ready: Bremerhaven quay' }).waitFor({ timeout: 60_000 });
  await page.getByRole('list', { name: 'Points of interest' }).getByRole('button', { name: 'Pump P-101', exact: true }).waitFor();
  await page.waitForTimeout(3_000);
}

async function shoot(page: Page, demo: DemoOrganization, shot: Shot) {
  await page.setViewportSize(shot.viewport ?? LAPTOP);
  await page.goto(`${origin}${shot.path(demo)}`);
  await page.waitForSelector('main h1');
  await shot.ready(page);
  // Nothing still loading: no "Loading…" status and no thumbnail on its way.
  await page.waitForFunction(() => !document.querySelector('main .loading, main .thumbnail.placeholder'));
  const alert = await page.locator('main [role=alert]').allTextContents();
  if (alert.some((words) => words.trim())) throw new Error(`${shot.file}: the screen shows an error: ${alert.join(' ')}`);
  if (shot.scrollTo) await page.locator(shot.scrollTo).evaluate((element) => element.scrollIntoView({ block: 'start' }));
  else await page.evaluate(() => window.scrollTo(0, 0));
  // The focus ring and the caret would otherwise be in the picture wherever they happen to be.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.screenshot({ path: `${OUT}${shot.file}`, caret: 'hide' });
  console.log(`docs/console/${shot.file}`);
}

let origin = '';

async function main() {
  await mkdir(OUT, { recursive: true });
  const [platform, browser] = await Promise.all([
    startConsolePlatform({ viewer: true, worker: true, env: { RDP_RATE_LIMIT_DISABLED: '1' } }),
    launchBrowser(),
  ]);
  origin = platform.origin;
  try {
    const demo = await seedDemoOrganization(platform);
    const page = await freshPage(browser, LAPTOP);
    await signIntoConsole(page, platform, demo.administrator);
    const only = process.argv.slice(2);
    for (const shot of SHOTS) if (only.length === 0 || only.includes(shot.file)) await shoot(page, demo, shot);
  } finally {
    await browser.close();
    await platform.close();
  }
}

// Printed here and ended with a status: the point cloud reader (laz-perf, emscripten) turns an
// unhandled rejection into a throw that prints its whole source.
await main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
