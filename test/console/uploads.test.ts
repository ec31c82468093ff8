import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etagOfBytes } from '../../src/domain/uploads/etag.js';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { writeLas, writeXyz } from '../support/point-cloud-samples.js';
import { bundleWithInput } from '../support/uploads.js';

const MIB = 1024 * 1024;
const PART_SIZE = 5 * MIB;
const QUOTA = 100 * 1000 * 1000;

/**
 * Uploads and bundles in the console, on a real platform with its worker: files dropped into a
 * new bundle, a multipart upload paused and resumed, the cost confirmed, processing watched to
 * its end (and to a failure, in words); a reader sees none of the controls.
 */
describe('the web console: uploads and bundles', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let browser: Browser;
  let page: Page;
  let reader: { email: string; password: string };
  let siteId: string;
  let dir: string;
  const files = {} as Record<'laz' | 'xyz' | 'big' | 'empty', string>;

  const api = {
    bundle: async (id: string) => (await org.admin.get(`/v1/bundles/${id}?expand=processings,components`)).body,
    storage: async () => (await org.admin.get('/v1/storage')).body as { usedBytes: number; quotaBytes: number | null },
    childNamed: async (parentId: string, name: string) =>
      ((await org.admin.get(`/v1/nodes/${parentId}/browse?limit=500`)).body as { id: string; name: string; type: string }[]).find(
        (node) => node.name === name,
      ),
  };

  async function openSite(target: Page) {
    await target.goto(`${t.origin}/console/nodes/${siteId}`);
    await expect.poll(() => target.textContent('main h1')).toBe('Quay plant');
  }

  /** Files dropped on the drop zone as a person drags them from their desktop (a DataTransfer holding them). */
  async function dropFiles(paths: string[]) {
    const payload = await Promise.all(
      paths.map(async (file) => ({ name: path.basename(file), base64: (await readFile(file)).toString('base64') })),
    );
    await page.evaluate((given) => {
      const data = new DataTransfer();
      for (const file of given) {
        const bytes = Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0));
        data.items.add(new File([bytes], file.name));
      }
      const zone = document.querySelector('.file-drop') as HTMLElement;
      zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, payload);
  }

  async function uploadAsBundle(name: string, paths: string[], how: 'pick' | 'drop' = 'pick') {
    if (how === 'drop') await dropFiles(paths);
    else await page.getByLabel('Files for a new data bundle').setInputFiles(paths);
    await page.getByLabel('Data bundle name').fill(name);
    await page.getByRole('button', { name: /as a new data bundle$/ }).click();
  }

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'rdp-console-uploads-'));
    files.laz = path.join(dir, 'sample-scan.laz');
    files.xyz = path.join(dir, 'notes.xyz');
    files.big = path.join(dir, 'big-scan.las');
    files.empty = path.join(dir, 'empty.las');
    [t, browser] = await Promise.all([
      startConsolePlatform({
        worker: true,
        env: { RDP_RATE_LIMIT_DISABLED: '1', RDP_UPLOAD_PART_SIZE_BYTES: String(PART_SIZE) },
      }),
      launchBrowser(),
      readFile(path.join(__dirname, '../../examples/sample-scan.laz')).then((bytes) =>
        import('node:fs/promises').then((fs) => fs.writeFile(files.laz, bytes)),
      ),
      writeXyz(files.xyz, 50),
      // 26-byte records: about 13 MB, three parts of 5 MiB.
      writeLas(files.big, 500_000),
      writeLas(files.empty, 0),
    ]);
    org = await createOrg(t, { storageQuota: QUOTA });
    const [administrator, readerPerson] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
    ]);
    reader = readerPerson;
    const division = await org.admin.post(`/v1/nodes/${org.orgId}/division`, { name: 'Harbour' });
    siteId = (await org.admin.post(`/v1/nodes/${division.body.id}/site`, { name: 'Quay plant', address: '1 Quay Street' })).body
      .id;
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('uploads several dropped files into a new bundle with progress, shows the storage before and after, and processes it after the cost is confirmed', async () => {
    await openSite(page);
    const storage = page.locator('.storage-use');
    await expect.poll(() => storage.textContent()).toContain('0 bytes used of 100 MB; 100 MB free');
    await expectAccessible(page);

    const sizes = [(await readFile(files.laz)).length, (await readFile(files.xyz)).length];
    await uploadAsBundle('Quay scan', [files.laz, files.xyz], 'drop');
    const upload = page.getByRole('region', { name: 'Upload of Quay scan' });
    await expect.poll(() => upload.getByRole('progressbar').count()).toBe(2);
    await expect.poll(() => upload.getByRole('status').textContent(), { timeout: 20_000 }).toContain('Uploaded.');
    expect(await upload.getByRole('progressbar', { name: 'sample-scan.laz' }).getAttribute('value')).toBe(String(sizes[0]));

    const bundleId = (await api.childNamed(siteId, 'Quay scan'))?.id as string;
    const uploaded = await api.bundle(bundleId);
    expect(uploaded).toMatchObject({ state: 'uploaded', size: sizes[0]! + sizes[1]! });
    const input = uploaded.components.find((component: { role: string }) => component.role === 'input');
    expect(input.files.map((file: { name: string; size: number }) => [file.name, file.size]).sort()).toEqual([
      ['notes.xyz', sizes[1]],
      ['sample-scan.laz', sizes[0]],
    ]);
    // The storage, read again as the upload ended, is what the API counts.
    const used = await api.storage();
    expect(used).toMatchObject({ usedBytes: sizes[0]! + sizes[1]!, quotaBytes: QUOTA });
    await expect.poll(() => storage.textContent()).toContain(`${((sizes[0]! + sizes[1]!) / 1000).toFixed(0)} KB used of 100 MB`);

    await upload.getByRole('link', { name: 'Quay scan' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Quay scan');
    const { cost, unit } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
    await expect.poll(() => page.textContent('.start-processing')).toContain(`Processing costs ${cost} ${unit}.`);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Process…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Process Quay scan?' });
    expect(await dialog.textContent()).toContain(`This costs ${cost} ${unit}`);
    await expectAccessible(page);
    await dialog.getByRole('button', { name: `Start processing for ${cost} ${unit}` }).click();
    await dialog.waitFor({ state: 'detached' });

    // Watched live: the same page (no reload) goes from waiting or running to done.
    const state = page.locator('.processing-state');
    await expect.poll(() => state.textContent(), { timeout: 45_000 }).toMatch(/^Processed in \d+/);
    const done = await api.bundle(bundleId);
    expect(done.state).toBe('ready');
    // The real time the worker took, from the API's instants: tenths under ten seconds, never "0 s".
    const { startedAt, finishedAt } = done.processings[0];
    const seconds = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
    expect(await state.textContent()).toBe(
      `Processed in ${seconds < 9.95 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`}.`,
    );
    const derivativeId = done.processings[0].derivativeId as string;
    expect((await org.admin.get(`/v1/nodes/${derivativeId}`)).body).toMatchObject({ type: 'pointCloud', parentId: siteId });
    expect((await org.admin.get(`/v1/nodes/${derivativeId}/tiles/tileset.json`)).status).toBe(200);
    await expectAccessible(page);
    await page.getByRole('link', { name: /^Open the point cloud/ }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/console/nodes/${derivativeId}`);
  }, 90_000);

  it('pauses a multipart upload and resumes it without sending its finished parts again', async () => {
    await openSite(page);
    const bytes = await readFile(files.big);
    expect(bytes.length).toBeGreaterThan(2 * PART_SIZE);
    // Every part but the first is held at the storage's door until the pause: part 1 finishes.
    const sent: number[] = [];
    page.on('request', (request) => {
      const part = new URL(request.url()).searchParams.get('partNumber');
      if (request.method() === 'PUT' && part) sent.push(Number(part));
    });
    let holding = true;
    await page.route('**/blob/**', async (route) => {
      const part = new URL(route.request().url()).searchParams.get('partNumber');
      while (holding && part !== '1') await new Promise((resolve) => setTimeout(resolve, 50));
      await route.continue().catch(() => undefined);
    });
    await uploadAsBundle('Big scan', [files.big]);
    const upload = page.getByRole('region', { name: 'Upload of Big scan' });
    const bar = upload.getByRole('progressbar', { name: 'big-scan.las' });
    // Part 1 answered (not only its bytes gone: a pause then would stop it too).
    await expect.poll(() => upload.getByRole('status').textContent(), { timeout: 20_000 }).toContain('(1 of 3 parts done)');
    await upload.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => upload.getByRole('status').textContent()).toContain('Paused');
    expect(Number(await bar.getAttribute('value'))).toBe(PART_SIZE);
    await expectAccessible(page);

    holding = false;
    await page.unroute('**/blob/**');
    await upload.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => upload.getByRole('status').textContent(), { timeout: 30_000 }).toContain('Uploaded.');
    // Part 1 went once; the parts stopped by the pause went again.
    expect(sent.filter((part) => part === 1)).toHaveLength(1);
    expect(new Set(sent)).toEqual(new Set([1, 2, 3]));
    const bundleId = (await api.childNamed(siteId, 'Big scan'))?.id as string;
    const bundle = await api.bundle(bundleId);
    expect(bundle).toMatchObject({ state: 'uploaded', size: bytes.length });
    // The bytes the API holds are the file's: its ETag is the one of these bytes cut in these parts.
    const input = bundle.components.find((component: { role: string }) => component.role === 'input');
    expect(input.files[0].etag.replaceAll('"', '')).toBe(etagOfBytes(bytes, PART_SIZE));
  }, 60_000);

  it('says in words why a processing failed', async () => {
    const { bundleId } = await bundleWithInput(org.admin, siteId, 'Empty scan', {
      name: 'empty.las',
      bytes: await readFile(files.empty),
    });
    await page.goto(`${t.origin}/console/nodes/${bundleId}`);
    await page.getByRole('button', { name: 'Process…' }).click();
    await page
      .getByRole('dialog', { name: 'Process Empty scan?' })
      .getByRole('button', { name: /^Start processing/ })
      .click();
    await expect
      .poll(() => page.getByRole('alert').textContent(), { timeout: 45_000 })
      .toBe('Why: The point cloud holds no points');
    expect(await page.textContent('.processing-state')).toBe('The processing failed.');
    const failed = await api.bundle(bundleId);
    expect(failed).toMatchObject({
      state: 'failed',
      processings: [{ state: 'failed', failureReason: 'The point cloud holds no points' }],
    });
    await expectAccessible(page);
  }, 60_000);

  it('shows a reader the bundles with no upload or processing control', async () => {
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader, `/console/nodes/${siteId}`);
    await expect.poll(() => readerPage.textContent('main h1')).toBe('Quay plant');
    await expect.poll(() => readerPage.getByRole('link', { name: /Quay scan$/ }).count()).toBe(1);
    expect(await readerPage.getByText('Upload data').count()).toBe(0);
    expect(await readerPage.locator('input[type=file]').count()).toBe(0);
    await expectAccessible(readerPage);

    await readerPage.getByRole('link', { name: /Quay scan$/ }).click();
    await expect.poll(() => readerPage.textContent('.processing-state')).toMatch(/^Processed in/);
    expect(await readerPage.getByRole('button', { name: /^Process/ }).count()).toBe(0);
    expect(await readerPage.locator('input[type=file]').count()).toBe(0);
    await expectAccessible(readerPage);
    await readerPage.context().close();
  }, 60_000);
});
