/**
 * Screenshots of the viewer's tools for docs/viewer.md ("Tools, in pictures"), taken in the
 * console's twin screen of a real platform (worker and viewer) seeded as for the console's
 * screenshots, in Debian's chromium:
 *
 *   npx tsx scripts/viewer-screenshots.ts        (or npm run viewer:screenshots)
 *   npx tsx scripts/viewer-screenshots.ts comparison.png     (only those)
 *
 * Writes docs/viewer/*.png at 1280x800. The tools are driven as a person drives them: the
 * toolbar's buttons, then clicks on pixels the scan paints (near chosen places of the view), so
 * the viewer snaps them to real points and a picture shows what it really draws.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Frame, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { launchBrowser } from '../test/support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../test/support/console.js';
import { type DemoOrganization, seedDemoOrganization } from './console-demo-organization.js';

const OUT = fileURLToPath(new URL('../docs/viewer/', import.meta.url));
const LAPTOP = { width: 1280, height: 800 };

/** A place in the framed view, as fractions of its width and height from its top left corner. */
type ViewPlace = { across: number; down: number };

class TwinScreen {
  constructor(
    readonly page: Page,
    readonly demo: DemoOrganization,
    readonly origin: string,
  ) {}

  frame(): Frame {
    const frame = this.page.frames().find((candidate) => candidate.url().includes('/viewer/'));
    if (!frame) throw new Error('no viewer frame');
    return frame;
  }
  status(): Promise<any> {
    return this.frame().evaluate(() => (window as any).rdpViewerStatus());
  }
  tool(name: string) {
    return this.page.getByRole('group', { name: 'Tools of the 3D view' }).getByRole('button', { name, exact: true });
  }

  /** Until `check` holds of the viewer's status, or fails after `ms`. */
  async until(check: (status: any) => boolean, what: string, ms = 30_000) {
    const since = Date.now();
    while (!check(await this.status())) {
      if (Date.now() - since > ms) throw new Error(`the viewer did not come to ${what} within ${ms} ms`);
      await this.page.waitForTimeout(200);
    }
  }

  /** Opens a site's twin (the quay's) with no saved measurement (each picture shows one tool), the toolbar scrolled to the top. */
  async open(siteId = this.demo.siteId, siteName = 'Bremerhaven quay') {
    const path = `/v1/twin/${siteId}/measurements`;
    for (const measurement of (await this.demo.org.admin.get(path)).body as { id: string }[]) {
      await this.demo.org.admin.request('DELETE', `${path}/${measurement.id}`);
    }
    await this.page.goto(`${this.origin}/console/twins/${siteId}`);
    await this.page.locator('.viewer-status', { hasText: `3D view ready: ${siteName}` }).waitFor({ timeout: 60_000 });
    await this.page.locator('.viewer-toolbar').evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await this.until((status) => status.layers[0]?.settled === true, 'rest with its tiles loaded');
    await this.page.waitForTimeout(1_000);
  }

  /**
   * The page position of a place in the framed view, moved to the nearest pixel the scan paints
   * (within 40 px): the scan's rings are a few pixels apart, and the viewer snaps to a point
   * within 6 pixels of the cursor only (docs/viewer.md, "Measuring").
   */
  async pagePosition(where: ViewPlace) {
    const box = await this.page.locator('iframe').boundingBox();
    if (!box) throw new Error('no iframe');
    // Inside the iframe's 1 px border.
    const [width, height] = [box.width - 2, box.height - 2];
    const aim = { x: where.across * width, y: where.down * height };
    const dataUrl = await this.frame().evaluate(() =>
      (document.querySelector('#rdp-viewer canvas') as HTMLCanvasElement).toDataURL('image/png'),
    );
    const canvas = PNG.sync.read(Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64'));
    const scale = canvas.width / (box.width - 2);
    let best: { x: number; y: number; distance: number } | undefined;
    for (let dy = -40; dy <= 40; dy += 1) {
      for (let dx = -40; dx <= 40; dx += 1) {
        const [x, y] = [Math.round(aim.x + dx), Math.round(aim.y + dy)];
        const [i, j] = [Math.round(x * scale), Math.round(y * scale)];
        if (i < 0 || j < 0 || i >= canvas.width || j >= canvas.height) continue;
        const k = (j * canvas.width + i) * 4;
        // Not the view's background (#202428).
        const data = canvas.data;
        const painted = Math.abs(data[k]! - 0x20) + Math.abs(data[k + 1]! - 0x24) + Math.abs(data[k + 2]! - 0x28) > 60;
        const distance = Math.hypot(dx, dy);
        if (painted && (!best || distance < best.distance)) best = { x, y, distance };
      }
    }
    if (!best) throw new Error(`nothing of the scan shows near ${JSON.stringify(where)}`);
    return { x: box.x + 1 + best.x, y: box.y + 1 + best.y };
  }
  async click(where: ViewPlace) {
    const { x, y } = await this.pagePosition(where);
    await this.page.mouse.click(x, y);
    await this.page.waitForTimeout(300);
  }
  async hover(where: ViewPlace) {
    const { x, y } = await this.pagePosition(where);
    await this.page.mouse.move(x, y, { steps: 5 });
    await this.page.waitForTimeout(500);
  }
  async choose(tool: string, name: string) {
    await this.tool(tool).click();
    await this.until((status) => status.tool === name, `the tool ${name}`);
  }

  async shoot(file: string) {
    await this.page.waitForTimeout(1_000);
    await this.page.screenshot({ path: `${OUT}${file}`, caret: 'hide' });
    console.log(`docs/viewer/${file}`);
  }
}

/** Each picture: its file and how the screen is brought to show it (ending with the shot). */
const SHOTS: [file: string, take: (screen: TwinScreen) => Promise<void>][] = [
  [
    'distance.png',
    // A distance across the scan's ring, its second point following the cursor: the line and the live label.
    async (screen) => {
      await screen.open();
      await screen.choose('Distance', 'distance');
      await screen.click({ across: 0.33, down: 0.6 });
      await screen.hover({ across: 0.68, down: 0.55 });
    },
  ],
  [
    'area.png',
    // An area, four points of the ring clicked and finished with Enter: saved, drawn with its value.
    async (screen) => {
      await screen.open();
      await screen.choose('Area', 'area');
      for (const [across, down] of [
        [0.35, 0.55],
        [0.5, 0.4],
        [0.66, 0.55],
        [0.5, 0.8],
      ] as const) {
        await screen.click({ across, down });
      }
      await screen.page.keyboard.press('Enter');
      await screen.page.locator('main [role=status]', { hasText: 'saved' }).waitFor();
      await screen.page.mouse.move(0, 0);
    },
  ],
  [
    'elevation.png',
    // The elevation colours: a blue-to-red ramp over the layers' heights.
    async (screen) => {
      await screen.open();
      await screen.page.getByLabel('Colour points by').selectOption({ label: 'Elevation' });
      await screen.until((status) => status.colorMode === 'elevation', 'the elevation colours');
    },
  ],
  [
    'classification.png',
    // The classification colours and their legend (the sample scan's points are all class 1).
    async (screen) => {
      await screen.open();
      await screen.page.getByLabel('Colour points by').selectOption({ label: 'Classification' });
      await screen.until((status) => status.colorMode === 'classification', 'the classification colours');
      await screen.frame().locator('#rdp-legend').waitFor();
    },
  ],
  [
    'clip-box.png',
    // A clip box placed with a click on the ring: only what is inside it stays.
    async (screen) => {
      await screen.open();
      await screen.choose('Clip box', 'clipBox');
      await screen.click({ across: 0.4, down: 0.7 });
      await screen.until((status) => status.clipBox !== null, 'a clip box');
      await screen.page.mouse.move(0, 0);
    },
  ],
  [
    'section-plane.png',
    // A section plane through a point of the ring, facing the camera: only a 0.5 m slice stays.
    async (screen) => {
      await screen.open();
      await screen.choose('Section plane', 'sectionPlane');
      await screen.click({ across: 0.35, down: 0.6 });
      await screen.until((status) => Boolean(status.section), 'a section plane');
      await screen.page.mouse.move(0, 0);
    },
  ],
  [
    'comparison.png',
    // The pier's twin: its comparison layer as a heat map (settled bowl, leaning parapet, a crate
    // beyond the maximum distance in grey) and the legend of its distances.
    async (screen) => {
      await screen.open(screen.demo.pierId, 'Cuxhaven pier');
      await screen.frame().locator('#rdp-distance-legend .rdp-distance-scale').waitFor();
    },
  ],
];

async function takeShots(screen: TwinScreen, only: string[]) {
  for (const [file, take] of SHOTS) {
    if (only.length > 0 && !only.includes(file)) continue;
    await take(screen);
    await screen.shoot(file);
  }
}

async function main() {
  await mkdir(OUT, { recursive: true });
  const [platform, browser] = await Promise.all([
    startConsolePlatform({ viewer: true, worker: true, env: { RDP_RATE_LIMIT_DISABLED: '1' } }),
    launchBrowser(),
  ]);
  try {
    const demo = await seedDemoOrganization(platform);
    const page = await freshPage(browser, LAPTOP);
    await signIntoConsole(page, platform, demo.administrator);
    await takeShots(new TwinScreen(page, demo, platform.origin), process.argv.slice(2));
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
