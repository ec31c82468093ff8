import { readFile } from 'node:fs/promises';
import type { OrgFixture } from './fixtures.js';
import { uploadBytes } from './uploads.js';

/**
 * A mesh's files (name → path on disk, as test/support/mesh-samples.ts writes them) uploaded as
 * one session of a new bundle under `parentId`, finalized, and processed by the platform's
 * worker, as a client does it: the bundle as `?expand=processings,components,thumbnail` shows it
 * once its processing has ended, ready or failed. It throws on any other answer.
 */
export async function processedMeshSession(org: OrgFixture, parentId: string, name: string, files: Map<string, string>) {
  const answered = (what: string, response: { status: number; body: unknown }, status: number) => {
    if (response.status !== status) throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  };
  const bundle = await org.admin.post(`/v1/nodes/${parentId}/bundle`, { name });
  answered('the bundle', bundle, 201);
  const bundleId = bundle.body.id as string;
  const session = await org.admin.post(`/v1/bundles/${bundleId}/upload-sessions`);
  answered('the session', session, 201);
  const sessionPath = `/v1/bundles/${bundleId}/upload-sessions/${session.body.id}`;
  const etags = [];
  for (const [fileName, filePath] of files) {
    const bytes = await readFile(filePath);
    const added = await org.admin.post(`${sessionPath}/files`, { name: fileName, size: bytes.length });
    answered(fileName, added, 201);
    etags.push({ id: added.body.id, etag: (await uploadBytes(added.body, bytes)).etag });
  }
  const finalized = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
  answered('finalize', finalized, 200);
  const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
  const started = await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost });
  answered('the processing', started, 202);
  const since = Date.now();
  for (;;) {
    const settled = (await org.admin.get(`/v1/bundles/${bundleId}?expand=processings,components,thumbnail`)).body;
    if (settled.state !== 'processing') return { bundleId, finalized: finalized.body, bundle: settled };
    if (Date.now() - since > 90_000) throw new Error('the processing did not end within 90 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
