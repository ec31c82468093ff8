import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBytes } from '../../src/domain/uploads/etag.js';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { generatedObjPart, libraryWriter } from '../support/library-models.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { writeLas } from '../support/point-cloud-samples.js';

const MIB = 1024 * 1024;
const PART_SIZE = 5 * MIB;

/**
 * Uploads that outlive a reload and library uploads that pause: a bundle's upload interrupted by
 * a reload after its first part, resumed by picking the same file again (a different one refused
 * in words) with only the missing parts sent; a library model paused and resumed.
 */
describe('the web console: uploads resumed after a reload, and paused in the library', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let siteId: string;
  let dir: string;
  let scan: string;
  let otherScan: string;
  /** The part numbers of the blob PUTs the page sends. */
  const sent: number[] = [];

  /** Holds every blob PUT but part 1 at the storage's door until `release()`, then drops it. */
  async function holdAllButPartOne() {
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const hold = async (route: Route) => {
      if (new URL(route.request().url()).searchParams.get('partNumber') === '1') return route.continue();
      await released;
      await route.abort().catch(() => undefined);
    };
    await page.route('**/blob/**', hold);
    return async () => {
      release();
      await page.unroute('**/blob/**', hold);
    };
  }

  /** The parts done that the console's upload journal (IndexedDB) holds for a bundle, or undefined: none journaled. */
  function journaledParts(bundleName: string): Promise<number[] | undefined> {
    return page.evaluate(
      (name) =>
        new Promise<number[] | undefined>((resolve, reject) => {
          const open = indexedDB.open('rdp-console-uploads', 1);
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const all = open.result.transaction('uploads').objectStore('uploads').getAll();
            all.onsuccess = () => {
              const entry = (all.result as { bundleName: string; files: { done: [number, string][] }[] }[]).find(
                (each) => each.bundleName === name,
              );
              open.result.close();
              resolve(entry?.files.flatMap((file) => file.done.map(([part]) => part)));
            };
          };
        }),
      bundleName,
    );
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rdp-console-resume-'));
    scan = path.join(dir, 'big-scan.las');
    otherScan = path.join(dir, 'other', 'big-scan.las');
    await mkdir(path.dirname(otherScan));
    [t, browser] = await Promise.all([
      startConsolePlatform({ env: { RDP_RATE_LIMIT_DISABLED: '1', RDP_UPLOAD_PART_SIZE_BYTES: String(PART_SIZE) } }),
      launchBrowser(),
      // 26-byte records: about 13 MB, three parts of 5 MiB; the other file has its name, not its size.
      writeLas(scan, 500_000),
      writeLas(otherScan, 400_000),
    ]);
    org = await createOrg(t);
    const administrator = await createMember(t, org, 'Organization Administrator');
    const division = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'Harbour' });
    siteId = (await org.admin.post(`/v1/nodes/${division.body.id}/site`, { name: 'Quay plant', address: '1 Quay Street' })).body
      .id;
    page = await freshPage(browser);
    page.on('request', (request) => {
      const part = new URL(request.url()).searchParams.get('partNumber');
      if (request.method() === 'PUT' && new URL(request.url()).pathname.startsWith('/blob/')) sent.push(Number(part ?? '1'));
    });
    await signIntoConsole(page, t, administrator, `/console/nodes/${siteId}`);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('resumes an upload interrupted by a reload when the same file is picked again, sending only the missing parts', async () => {
    await expect.poll(() => page.textContent('main h1')).toBe('Quay plant');
    const bytes = await readFile(scan);
    expect(bytes.length).toBeGreaterThan(2 * PART_SIZE);
    const release = await holdAllButPartOne();
    await page.getByLabel('Files for a new data bundle').setInputFiles(scan);
    await page.getByLabel('Data bundle name').fill('Big scan');
    await page.getByRole('button', { name: /as a new data bundle$/ }).click();
    // Part 1 is done (and journaled); parts 2 and 3 are held: the reload interrupts them.
    await expect.poll(() => journaledParts('Big scan'), { timeout: 20_000 }).toEqual([1]);
    await page.reload();
    await release();

    // The site's screen tells the interrupted upload and links its bundle.
    await expect.poll(() => page.textContent('main h1')).toBe('Quay plant');
    const onSite = page.getByRole('region', { name: 'Interrupted upload of Big scan' });
    await expect.poll(() => onSite.getByRole('status').textContent()).toContain('Interrupted: 1 of 3 parts of big-scan.las');
    await expectAccessible(page);
    await onSite.getByRole('link', { name: 'Big scan' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Big scan');
    const bundleId = new URL(page.url()).pathname.split('/').at(-1) as string;
    const notice = page.getByRole('region', { name: 'Interrupted upload of Big scan' });
    await expect.poll(() => notice.getByRole('status').textContent()).toContain('Pick the same file to resume');
    await expectAccessible(page);

    // Another file of the same name is refused in words; nothing is sent.
    sent.length = 0;
    const picker = notice.getByLabel('The same file for Big scan');
    await picker.setInputFiles(otherScan);
    await expect
      .poll(() => notice.getByRole('alert').textContent())
      .toContain('big-scan.las is not the file this upload was sending');
    expect(sent).toEqual([]);

    await picker.setInputFiles(scan);
    await expect
      .poll(async () => (await org.admin.get(`/v1/bundles/${bundleId}`)).body.state, { timeout: 30_000 })
      .toBe('uploaded');
    // Only the parts the reload interrupted went, once each.
    expect(sent.sort()).toEqual([2, 3]);
    const bundle = (await org.admin.get(`/v1/bundles/${bundleId}?expand=components`)).body;
    expect(bundle.size).toBe(bytes.length);
    const input = bundle.components.find((component: { role: string }) => component.role === 'input');
    expect(input.files[0].etag.replaceAll('"', '')).toBe(etagOfBytes(bytes, PART_SIZE));
    // Done: the journal forgot it, and the screen shows the file uploaded.
    await expect.poll(() => journaledParts('Big scan')).toBeUndefined();
    await expect.poll(() => page.locator('.bundle-panel table').textContent()).toContain('Uploaded');
  }, 90_000);

  it('pauses a library model’s upload and resumes it, sending only the part not done', async () => {
    const size = PART_SIZE + MIB;
    const bytes = generatedObjPart(size, 0, size);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Library' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Library');
    const release = await holdAllButPartOne();
    sent.length = 0;
    await page.getByRole('button', { name: 'Add a model' }).click();
    const add = page.getByRole('dialog', { name: 'Add a model to the library' });
    await add.locator('input[type=file]').setInputFiles({ name: 'tank.obj', mimeType: 'text/plain', buffer: bytes });
    await add.getByRole('button', { name: 'Add model' }).click();
    // Part 1 done (answered, not only its bytes gone), part 2 held.
    await expect.poll(() => add.getByRole('status').textContent(), { timeout: 20_000 }).toBe('Uploading: 1 of 2 parts sent.');
    expect(Number(await add.getByRole('progressbar', { name: 'Uploading' }).getAttribute('value'))).toBe(PART_SIZE);
    await add.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => add.getByRole('status').textContent()).toContain('Paused');
    await expectAccessible(page);

    await release();
    await add.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.textContent('main h1'), { timeout: 30_000 }).toBe('tank');
    // Part 1 went once; part 2 again after the pause stopped it.
    expect(sent.filter((part) => part === 1)).toHaveLength(1);
    expect(new Set(sent)).toEqual(new Set([1, 2]));
    const modelId = new URL(page.url()).pathname.split('/').at(-1) as string;
    const model = (await (await libraryWriter(org)).get(`/v1/asset-library/models/${modelId}`)).body;
    expect(model.file).toMatchObject({ name: 'tank.obj', size });
    expect(model.file.etag.replaceAll('"', '')).toBe(etagOfBytes(bytes, PART_SIZE));
  }, 60_000);
});
