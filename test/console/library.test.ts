import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from '../support/axe.js';
import { launchBrowser } from '../support/browser.js';
import { freshPage, signIntoConsole, startConsolePlatform } from '../support/console.js';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel, generatedObjPart, libraryWriter } from '../support/library-models.js';
import { boxObj } from '../support/model-samples.js';
import { createMember } from '../support/oauth-flow.js';
import type { TestPlatform } from '../support/platform.js';
import { createSite } from '../support/twins.js';
import { uploadBytes } from '../support/uploads.js';

/**
 * The asset library in the console, with a real worker making the previews: tags, a model
 * uploaded and watched until ready with its thumbnail, tagged, found by its tag, placed in a
 * site's twin; a reader sees the library and none of its write controls.
 */
describe('the web console: the asset library', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let library: ApiClient;
  let browser: Browser;
  let page: Page;
  let reader: { email: string; password: string };
  let siteId: string;
  const ids = {} as Record<'valves' | 'old' | 'valve' | 'broken' | 'pumps' | 'pump', string>;
  const obj = boxObj();
  const PART = 5 * 1024 * 1024;

  const api = {
    model: async (id: string) => (await library.get(`/v1/asset-library/models/${id}?includeTags=true`)).body,
    tags: async () => (await library.get('/v1/asset-library/tags')).body as { id: string; name: string; modelCount: number }[],
  };

  /** The Library entry of the console's navigation (a model's screen has a breadcrumb of that name too). */
  async function openLibrary() {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Library' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Library');
  }

  async function dialogSubmit(title: string, fields: Record<string, string>, button: string) {
    const dialog = page.getByRole('dialog', { name: title });
    for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
    await dialog.getByRole('button', { name: button, exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
  }

  beforeAll(async () => {
    [t, browser] = await Promise.all([
      // Parts of 5 MiB (the least S3 takes): a file of 6 MiB goes up in two, as large models do.
      startConsolePlatform({ worker: true, env: { RDP_RATE_LIMIT_DISABLED: '1', RDP_UPLOAD_PART_SIZE_BYTES: String(PART) } }),
      launchBrowser(),
    ]);
    org = await createOrg(t);
    library = await libraryWriter(org);
    const [administrator, readerPerson] = await Promise.all([
      createMember(t, org, 'Organization Administrator'),
      createMember(t, org, 'Organization Reader'),
    ]);
    reader = readerPerson;
    siteId = await createSite(org, 'Quay plant');
    // A model tagged Valves (a STEP file: ready at once, no preview) that the Pumps filter leaves out.
    ids.valves = (await library.post('/v1/asset-library/tags', { name: 'Valves' })).body.id;
    ids.old = (await library.post('/v1/asset-library/tags', { name: 'Old' })).body.id;
    ids.valve = (await createLibraryModel(org, { name: 'Valve V-1' })).id;
    expect((await library.patch(`/v1/asset-library/models/${ids.valve}`, { tagIds: [ids.valves] })).status).toBe(200);
    // An OBJ whose face names a vertex it lacks: the worker fails it, with the reason.
    const broken = Buffer.from('v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n');
    const created = await library.post('/v1/asset-library/models', {
      name: 'Broken pump',
      fileName: 'broken.obj',
      size: broken.length,
    });
    ids.broken = created.body.id;
    const { etag } = await uploadBytes(created.body, broken);
    expect((await library.post(`/v1/asset-library/models/${ids.broken}/finalize`, { etag })).status).toBe(200);
    page = await freshPage(browser);
    await signIntoConsole(page, t, administrator);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('manages tags with their model counts', async () => {
    await openLibrary();
    await expect.poll(() => page.textContent('main h1')).toBe('Library');
    await page.getByRole('link', { name: 'Tags', exact: true }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('Tags');
    await expect.poll(() => page.getByRole('link', { name: '1 model tagged Valves' }).count()).toBe(1);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New tag' }).click();
    await dialogSubmit('New tag', { Name: 'Pumps' }, 'Create tag');
    await expect.poll(() => page.textContent('main [role=status]')).toBe('Tag Pumps created.');
    ids.pumps = (await api.tags()).find((tag) => tag.name === 'Pumps')?.id as string;
    expect(ids.pumps).toBeDefined();

    // A name taken (without regard to case) is refused in words, and nothing changes.
    await page.getByRole('button', { name: 'Edit Valves' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit the tag Valves' });
    await edit.getByLabel('Name', { exact: true }).fill('pumps');
    await edit.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => edit.getByRole('alert').textContent()).toContain('Another tag has this name');
    await dialogSubmit('Edit the tag Valves', { Name: 'Valves and fittings' }, 'Save');
    await expect.poll(() => page.textContent('main [role=status]')).toBe('Tag saved as Valves and fittings.');

    await page.getByRole('button', { name: 'Delete Old' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete the tag Old?' });
    expect(await confirm.textContent()).toContain('No model carries it.');
    await confirm.getByRole('button', { name: 'Delete Old' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect((await api.tags()).map((tag) => [tag.name, tag.modelCount])).toEqual([
      ['Pumps', 0],
      ['Valves and fittings', 1],
    ]);
  });

  it('uploads a model, watches it become ready with its thumbnail, tags it and finds it by the tag', async () => {
    await openLibrary();
    await expect.poll(() => page.textContent('main [role=status]')).toBe('2 models.');
    await page.getByRole('button', { name: 'Add a model' }).click();
    const add = page.getByRole('dialog', { name: 'Add a model to the library' });
    await add.locator('input[type=file]').setInputFiles({ name: 'pump.obj', mimeType: 'text/plain', buffer: Buffer.from(obj) });
    // The name is taken from the file's; the person writes their own.
    expect(await add.getByLabel('Name', { exact: true }).inputValue()).toBe('pump');
    await add.getByLabel('Name', { exact: true }).fill('Pump P-101');
    await add.getByLabel('Description (optional)').fill('Centrifugal pump, quay side');
    await expectAccessible(page);
    await add.getByRole('button', { name: 'Add model' }).click();

    // On the model's screen, watched until the worker made its preview.
    await expect.poll(() => page.textContent('main h1')).toBe('Pump P-101');
    ids.pump = new URL(page.url()).pathname.split('/').at(-1) as string;
    await expect.poll(() => page.textContent('.facts [role=status]'), { timeout: 30_000 }).toBe('Ready');
    const thumbnail = page.getByRole('img', { name: 'Thumbnail of Pump P-101' });
    await expect.poll(() => thumbnail.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(256);
    expect(await thumbnail.getAttribute('src')).toMatch(/^blob:/);
    expect(await page.textContent('main')).toContain('Previewable: a preview and a thumbnail were made.');
    expect(await api.model(ids.pump)).toMatchObject({
      name: 'Pump P-101',
      description: 'Centrifugal pump, quay side',
      status: 'ready',
      previewable: true,
      file: { name: 'pump.obj', format: 'obj', size: Buffer.byteLength(obj) },
    });
    // The original downloads through its signed link, byte for byte.
    const link = await page.getByRole('link', { name: 'Download pump.obj' }).getAttribute('href');
    expect(await (await fetch(link as string)).text()).toBe(obj);
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Edit tags' }).click();
    const tags = page.getByRole('dialog', { name: 'Tags of Pump P-101' });
    await tags.getByLabel('Pumps').check();
    await tags.getByRole('button', { name: 'Save tags' }).click();
    await tags.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByRole('list', { name: 'Tags' }).textContent()).toBe('Pumps');
    expect((await api.model(ids.pump)).tags.map((tag: { id: string }) => tag.id)).toEqual([ids.pumps]);

    await openLibrary();
    await expect.poll(() => page.textContent('main [role=status]')).toBe('3 models.');
    await page.getByLabel('Pumps (1)').check();
    await expect.poll(() => page.textContent('main [role=status]')).toBe('1 model tagged Pumps.');
    expect(new URL(page.url()).searchParams.getAll('tag')).toEqual([ids.pumps]);
    expect(await page.locator('.model-grid .model-name').allTextContents()).toEqual(['Pump P-101']);
    await expect
      .poll(() =>
        page.getByRole('img', { name: 'Thumbnail of Pump P-101' }).evaluate((image: HTMLImageElement) => image.naturalWidth),
      )
      .toBe(256);
    await page.getByLabel('Valves and fittings (1)').check();
    await expect.poll(() => page.textContent('main [role=status]')).toBe('No model carries all of Pumps, Valves and fittings.');
    await expectAccessible(page);
  }, 60_000);

  it('places the model in a site twin, shows where, and refuses its deletion in words while it is placed', async () => {
    await page.goto(`${t.origin}/console/library/models/${ids.pump}`);
    await expect.poll(() => page.textContent('.facts [role=status]')).toBe('Ready');
    await page.getByRole('button', { name: 'Place in a twin' }).click();
    const place = page.getByRole('dialog', { name: 'Place Pump P-101 in a twin' });
    await place.getByLabel('Find a site by name').fill('quay');
    await place.getByRole('button', { name: 'Find' }).click();
    await expectAccessible(page);
    await place.getByRole('button', { name: 'Choose Quay plant' }).first().click();
    await dialogSubmit(
      'Place Pump P-101 in a twin',
      { X: '14', Y: '3.5', Z: '0', 'Turn about the vertical (degrees)': '90', 'Scale (1: as modelled)': '2' },
      'Place in Quay plant',
    );
    const where = 'Pump P-101 in the twin of Quay plant at x 14, y 3.5, z 0 m, turned 90° about the vertical, scale 2.';
    await expect.poll(() => page.textContent('main [role=status].notice')).toBe(`Placed: ${where}`);
    expect(await page.getByRole('region', { name: 'Placed in twins' }).textContent()).toContain(where);
    const assets = (await org.admin.get(`/v1/twin/${siteId}/model-assets`)).body;
    expect(assets).toHaveLength(1);
    expect(assets[0]).toMatchObject({ libraryModelId: ids.pump, name: 'Pump P-101', position: { x: 14, y: 3.5, z: 0 } });
    expect(assets[0].scale).toEqual({ x: 2, y: 2, z: 2 });
    expect(assets[0].rotation.z).toBeCloseTo(Math.SQRT1_2, 6);
    expect(assets[0].rotation.w).toBeCloseTo(Math.SQRT1_2, 6);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete Pump P-101?' });
    await confirm.getByRole('button', { name: 'Delete Pump P-101' }).click();
    await expect.poll(() => confirm.getByRole('alert').textContent()).toContain('This model is placed in twins');
    expect((await library.get(`/v1/asset-library/models/${ids.pump}`)).status).toBe(200);
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Edit name and description' }).click();
    await dialogSubmit('Edit Pump P-101', { Name: 'Pump P-101 spare' }, 'Save');
    await expect.poll(() => page.textContent('main h1')).toBe('Pump P-101 spare');
    expect((await api.model(ids.pump)).name).toBe('Pump P-101 spare');
  });

  it('shows a Reader the library, a model and the tags, and none of the write controls', async () => {
    const readerPage = await freshPage(browser);
    await signIntoConsole(readerPage, t, reader, '/console/library');
    await expect.poll(() => readerPage.textContent('main [role=status]')).toBe('3 models.');
    const buttons = () => readerPage.getByRole('button').allTextContents();
    expect(await buttons()).toEqual(['Sign out']);
    await expectAccessible(readerPage);

    await readerPage.getByRole('link', { name: 'Pump P-101 spare' }).click();
    await expect.poll(() => readerPage.textContent('.facts [role=status]')).toBe('Ready');
    await expect
      .poll(() =>
        readerPage
          .getByRole('img', { name: 'Thumbnail of Pump P-101 spare' })
          .evaluate((image: HTMLImageElement) => image.naturalWidth),
      )
      .toBe(256);
    expect(await buttons()).toEqual(['Sign out']);
    await expectAccessible(readerPage);

    // A model the worker could not preview: why, in words.
    await readerPage.goto(`${t.origin}/console/library/models/${ids.broken}`);
    await expect.poll(() => readerPage.textContent('.facts [role=status]'), { timeout: 30_000 }).toBe('Preview failed');
    expect(await readerPage.textContent('.facts')).toContain(
      'No preview: The OBJ file cannot be read: a face refers to vertex 9',
    );
    expect(await readerPage.getByRole('img').count()).toBe(0);
    expect(await buttons()).toEqual(['Sign out']);

    await readerPage.goto(`${t.origin}/console/library/tags`);
    await expect.poll(() => readerPage.getByRole('link', { name: '1 model tagged Pumps' }).count()).toBe(1);
    expect(await buttons()).toEqual(['Sign out']);
    await expectAccessible(readerPage);
    await readerPage.context().close();
  });

  it('uploads a model larger than a part in parts, whose combined ETag finalize accepts', async () => {
    const size = PART + 1024 * 1024;
    await openLibrary();
    await page.getByRole('button', { name: 'Add a model' }).click();
    const add = page.getByRole('dialog', { name: 'Add a model to the library' });
    await add
      .locator('input[type=file]')
      .setInputFiles({ name: 'large.obj', mimeType: 'text/plain', buffer: generatedObjPart(size, 0, size) });
    await add.getByRole('button', { name: 'Add model' }).click();
    await expect.poll(() => page.textContent('main h1')).toBe('large');
    await expect.poll(() => page.textContent('.facts [role=status]'), { timeout: 30_000 }).toBe('Ready');
    const id = new URL(page.url()).pathname.split('/').at(-1) as string;
    expect(await api.model(id)).toMatchObject({ status: 'ready', file: { size, format: 'obj' } });
    expect((await api.model(id)).file.etag).toMatch(/-2"?$/);
  }, 60_000);
});
