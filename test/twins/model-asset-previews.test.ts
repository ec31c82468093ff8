import { beforeAll, describe, expect, it } from 'vitest';
import { type ApiClient, createOrg, type OrgFixture } from '../support/fixtures.js';
import { createLibraryModel, runPreview, setLibraryModelStatus } from '../support/library-models.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { createSite, openDraft, twinSnapshot } from '../support/twins.js';

const GLB = 'model/gltf-binary';
const position = { x: 3, y: 4, z: 0 };

/**
 * GET /v1/twin/{ctx}/model-assets/{modelAssetId}/preview (docs/design/meshes.md#model-previews):
 * the placed model's library preview to whoever reads the twin, embed tokens included, with no
 * library scope; the bytes compared with the library's own download of the preview.
 */
describe('model asset previews: /v1/twin/{ctx}/model-assets/{modelAssetId}/preview', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let other: OrgFixture;
  let siteId: string;
  let otherSiteId: string;
  let draftId: string;
  let assetId: string;
  let draftOnlyAssetId: string;
  let modelId: string;
  /** The preview's bytes as the library's own download link gives them. */
  let libraryPreview: Buffer;
  withPlatformAndOrg((started) => ({ t, org } = started));

  /** A GET with a bearer token, the answer's bytes kept as bytes. */
  async function fetchBytes(client: ApiClient, path: string, headers: Record<string, string> = {}) {
    const response = await fetch(`${client.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${client.token}`, ...headers },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  async function place(ctx: string, libraryModelId: string, owner: OrgFixture = org): Promise<string> {
    const response = await owner.admin.post(`/v1/twin/${ctx}/model-assets`, { libraryModelId, name: 'Pump', position });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.id;
  }

  async function embedToken(target: Record<string, string>): Promise<ApiClient> {
    const session = await org.admin.post('/v1/embed-sessions', { ...target, allowedOrigins: ['https://app.example.com'] });
    expect(session.status, JSON.stringify(session.body)).toBe(201);
    return org.admin.withToken(session.body.token);
  }

  const preview = (ctx: string, id: string) => `/v1/twin/${ctx}/model-assets/${id}/preview`;

  beforeAll(async () => {
    other = await createOrg(t);
    siteId = await createSite(org);
    otherSiteId = await createSite(org, 'Elsewhere');
    // An OBJ model, previewed by the worker's own handler (these platforms run no worker).
    modelId = (await createLibraryModel(org, { status: 'processing' })).id;
    await runPreview(t, org, modelId);
    assetId = await place(siteId, modelId);
    draftId = (await openDraft(org, siteId)).id;
    draftOnlyAssetId = await place(draftId, modelId);
    const { client: downloader } = await org.serviceClient({
      scopes: 'read:basic read:assetlibrary download:assetlibrary',
      roleName: 'Organization Administrator',
    });
    const model = await downloader.get(`/v1/asset-library/models/${modelId}?includeDownloadLinks=true`);
    expect(model.body.status).toBe('ready');
    const link = await fetch(model.body.downloadLinks.preview.url);
    expect(link.status).toBe(200);
    libraryPreview = Buffer.from(await link.arrayBuffer());
    expect(libraryPreview.subarray(0, 4).toString('latin1')).toBe('glTF');
  });

  const refused = refuser(() => twinSnapshot(t, org));

  it("answers the library model's preview GLB to an admin, through the live twin and a draft; Range; ETag and 304", async () => {
    const live = await fetchBytes(org.admin, preview(siteId, assetId));
    expect(live.status, live.bytes.toString()).toBe(200);
    expect(live.headers.get('content-type')).toBe(GLB);
    expect(live.headers.get('content-length')).toBe(String(libraryPreview.length));
    expect(live.headers.get('cache-control')).toBe('private, max-age=0, must-revalidate');
    expect(live.headers.get('accept-ranges')).toBe('bytes');
    expect(live.bytes.equals(libraryPreview)).toBe(true);
    const etag = live.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9a-f-]+"$/);

    // The draft's view: the live placement, and the draft's own one (not the live twin's).
    for (const id of [assetId, draftOnlyAssetId]) {
      const drafted = await fetchBytes(org.admin, preview(draftId, id));
      expect(drafted.status).toBe(200);
      expect(drafted.bytes.equals(libraryPreview)).toBe(true);
      expect(drafted.headers.get('etag')).toBe(etag);
    }
    await refused(() => org.admin.get(preview(siteId, draftOnlyAssetId)), 404, 'Not Found', 'Model asset not found');

    const range = await fetchBytes(org.admin, preview(siteId, assetId), { range: 'bytes=0-3' });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 0-3/${libraryPreview.length}`);
    expect(range.bytes.toString('latin1')).toBe('glTF');
    const past = await fetchBytes(org.admin, preview(siteId, assetId), { range: `bytes=${libraryPreview.length}-` });
    expect(past.status).toBe(416);

    const unchanged = await fetchBytes(org.admin, preview(siteId, assetId), { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.bytes.length).toBe(0);
    expect(unchanged.headers.get('etag')).toBe(etag);
    const stale = await fetchBytes(org.admin, preview(siteId, assetId), {
      'if-none-match': '"0123456789abcdef0123456789abcdef"',
    });
    expect(stale.status).toBe(200);
    expect(stale.bytes.equals(libraryPreview)).toBe(true);
  });

  it("needs only read on the site: a Viewer with read:hierarchy (no library scope) reads it; one without the site's read is 403", async () => {
    const { client: reader } = await org.serviceClient({
      scopes: 'read:basic read:hierarchy',
      roleName: 'Viewer',
      nodeId: siteId,
    });
    // The library's own read is out of this token's scopes: the twin's read is what lets it in.
    expect((await reader.get(`/v1/asset-library/models/${modelId}`)).status).toBe(403);
    const read = await fetchBytes(reader, preview(siteId, assetId));
    expect(read.status).toBe(200);
    expect(read.bytes.equals(libraryPreview)).toBe(true);
    const { client: elsewhere } = await org.serviceClient({
      scopes: 'read:basic read:hierarchy',
      roleName: 'Viewer',
      nodeId: otherSiteId,
    });
    await refused(() => elsewhere.get(preview(siteId, assetId)), 403, 'Forbidden', 'Forbidden resource');
  });

  it("an embed session's token of the twin (or of the draft) reads it; a token of another twin is refused", async () => {
    const twinToken = await embedToken({ twinId: siteId });
    const read = await fetchBytes(twinToken, preview(siteId, assetId));
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe(GLB);
    expect(read.bytes.equals(libraryPreview)).toBe(true);
    const draftToken = await embedToken({ twinDraftId: draftId });
    const drafted = await fetchBytes(draftToken, preview(draftId, draftOnlyAssetId));
    expect(drafted.status).toBe(200);
    expect(drafted.bytes.equals(libraryPreview)).toBe(true);

    const otherTwinToken = await embedToken({ twinId: otherSiteId });
    const outOfReach = await refused(() => otherTwinToken.get(preview(siteId, assetId)), 403, 'Forbidden');
    expect(outOfReach.body.errorCode).toBe('EmbedTokenOutOfReach');
  });

  it("is 404 for another organization's twin or model asset and for an unknown id, each saying which", async () => {
    // The twin's site is no node of the caller's organization, as the other twin reads say.
    await refused(() => other.admin.get(preview(siteId, assetId)), 404, 'Not Found', 'Node not found');
    const otherAsset = await place(await createSite(other), (await createLibraryModel(other)).id, other);
    await refused(() => org.admin.get(preview(siteId, otherAsset)), 404, 'Not Found', 'Model asset not found');
    await refused(() => org.admin.get(preview(siteId, 'no-such-asset')), 404, 'Not Found', 'Model asset not found');
  });

  it('is 404 naming why for a placed model whose library model has no preview: ready without one, or failed', async () => {
    // A STEP file: a library format the platform does not preview, ready at once.
    const stepModel = (await createLibraryModel(org, { name: 'Step pump' })).id;
    const stepAsset = await place(siteId, stepModel);
    await refused(
      () => org.admin.get(preview(siteId, stepAsset)),
      404,
      'Not Found',
      `Library model ${stepModel} has no preview: it is ready without one (UnsupportedFormat)`,
    );
    // As the worker leaves a model it could not preview (the routes place ready models only).
    const failedModel = (await createLibraryModel(org, { name: 'Failed pump' })).id;
    const failedAsset = await place(siteId, failedModel);
    await setLibraryModelStatus(t, org, failedModel, 'failed');
    await refused(
      () => org.admin.get(preview(siteId, failedAsset)),
      404,
      'Not Found',
      new RegExp(`^Library model ${failedModel} has no preview: making it failed`),
    );
  });
});
