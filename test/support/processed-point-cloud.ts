import http from 'node:http';
import type { OrgFixture } from './fixtures.js';
import { bundleWithInput } from './uploads.js';

/**
 * A point cloud uploaded as a bundle's input and processed by the platform's worker, as a client
 * does it: the bundle as `?expand=processings,components,thumbnail` shows it once ready. It throws
 * rather than expects: scripts/console-screenshots.ts seeds with it outside the tests.
 */
export async function processedPointCloud(org: OrgFixture, parentId: string, input: { name: string; bytes: Buffer }) {
  const { bundleId, finalized } = await bundleWithInput(org.admin, parentId, `Processed ${input.name}`, input);
  if (finalized.status !== 200) throw new Error(`finalize answered ${finalized.status}: ${JSON.stringify(finalized.body)}`);
  const { cost } = (await org.admin.get(`/v1/bundles/${bundleId}/processing/cost`)).body;
  const started = await org.admin.post(`/v1/bundles/${bundleId}/processing`, { cost });
  if (started.status !== 202) throw new Error(`processing answered ${started.status}: ${JSON.stringify(started.body)}`);
  const since = Date.now();
  for (;;) {
    const bundle = (await org.admin.get(`/v1/bundles/${bundleId}?expand=processings,components,thumbnail`)).body;
    if (bundle.state !== 'processing') {
      if (bundle.state !== 'ready') throw new Error(`the bundle ended ${bundle.state}: ${JSON.stringify(bundle.processings)}`);
      return { bundleId, bundle, derivativeId: bundle.processings[0].derivativeId as string };
    }
    if (Date.now() - since > 60_000) throw new Error('the processing did not end within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The points of a glTF point tile: the count of its POSITION accessor (a tile holds one primitive). */
export function glbPointCount(glb: Buffer): number {
  if (glb.toString('latin1', 0, 4) !== 'glTF') throw new Error('not a binary glTF');
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.toString('utf8', 20, 20 + jsonLength));
  let points = 0;
  for (const mesh of json.meshes ?? [])
    for (const primitive of mesh.primitives) points += json.accessors[primitive.attributes.POSITION].count;
  return points;
}

/** Every content URI of a tileset, depth first. */
export function contentUris(tileset: { root: unknown }): string[] {
  const uris: string[] = [];
  const visit = (tile: { content?: { uri: string }; children?: unknown[] }) => {
    if (tile.content) uris.push(tile.content.uri);
    for (const child of tile.children ?? []) visit(child as typeof tile);
  };
  visit(tileset.root as Parameters<typeof visit>[0]);
  return uris;
}

/**
 * A GET whose path goes on the wire exactly as written: fetch would resolve `..` and `%2e%2e`
 * before sending, which hides what a hand-made request can ask.
 */
export function rawGet(url: string, rawPath: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: number; body: string; bytes: Buffer; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request({ host: hostname, port, path: rawPath, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode ?? 0, body: bytes.toString(), bytes, headers: response.headers });
      });
    });
    request.on('error', reject);
    request.end();
  });
}
