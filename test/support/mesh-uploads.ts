import { PNG } from 'pngjs';
import { expect } from 'vitest';
import { expectNoInternals, type OrgFixture, snapshot } from './fixtures.js';
import { boxObj } from './model-samples.js';
import type { TestPlatform } from './start-platform.js';
import { uploadBytes } from './uploads.js';

/**
 * Mesh inputs as a client uploads them (docs/processing.md, "Mesh inputs"), built in the test:
 * an OBJ with its MTL and a texture, PLY headers, GLB containers. The box itself is
 * model-samples.ts's.
 */

/** A real PNG of noise, `side` pixels square: about 3 x side² bytes (noise does not compress). */
export function noiseTexture(side: number, seed = 1): Buffer {
  const png = new PNG({ width: side, height: side });
  let state = seed;
  for (let at = 0; at < png.data.length; at += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    png.data[at] = at % 4 === 3 ? 255 : state >>> 24;
  }
  return PNG.sync.write(png);
}

/** The box OBJ (it names box.mtl), its MTL (naming box.png) and a texture of `side` pixels. */
export function texturedBoxFiles(side = 160): { name: string; bytes: Buffer }[] {
  return [
    { name: 'box.obj', bytes: Buffer.from(boxObj()) },
    { name: 'box.mtl', bytes: Buffer.from('# a material\nnewmtl grey\nKd 0.8 0.8 0.8\nmap_Kd box.png\n') },
    { name: 'box.png', bytes: noiseTexture(side) },
  ];
}

/** An ASCII PLY of one triangle whose header declares `faces` faces (finalize reads only the header). */
export function plyDeclaringFaces(faces: number): Buffer {
  const header = ['ply', 'format ascii 1.0', 'element vertex 3', 'property float x', 'property float y', 'property float z'];
  header.push(`element face ${faces}`, 'property list uchar int vertex_indices', 'end_header');
  return Buffer.from(`${header.join('\n')}\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n`);
}

/** A GLB of its header and JSON chunk only: what finalize reads of it, declaring what `json` says. */
export function glbOfJson(json: unknown): Buffer {
  let text = JSON.stringify(json);
  while (text.length % 4 !== 0) text += ' ';
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.write('JSON', 16, 'latin1');
  return Buffer.concat([header, Buffer.from(text, 'latin1')]);
}

/** A file as a client uploads it. */
export interface UploadedFile {
  name: string;
  bytes: Buffer;
}

/** Where a suite uploads: its platform, organization and a site to put bundles under. */
export interface MeshSuite {
  t: TestPlatform;
  org: OrgFixture;
  siteId: string;
}

/** A bundle whose open session holds these files, uploaded, and the finalize call's body. */
export async function uploadedSession({ org, siteId }: MeshSuite, name: string, files: UploadedFile[]) {
  const bundle = await org.admin.post(`/v1/nodes/${siteId}/bundle`, { name });
  expect(bundle.status).toBe(201);
  const session = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions`);
  expect(session.status).toBe(201);
  const etags = [];
  for (const file of files) {
    const added = await org.admin.post(`/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}/files`, {
      name: file.name,
      size: file.bytes.length,
    });
    expect(added.status).toBe(201);
    etags.push({ id: added.body.id, etag: (await uploadBytes(added.body, file.bytes)).etag });
  }
  const sessionPath = `/v1/bundles/${bundle.body.id}/upload-sessions/${session.body.id}`;
  return { bundleId: bundle.body.id as string, sessionPath, etags };
}

/** Finalize is refused with this status and code, the message matching, and nothing is stored. */
export async function refusedAtFinalize(
  suite: MeshSuite,
  name: string,
  files: UploadedFile[],
  error: string,
  message: RegExp,
): Promise<void> {
  const { t, org } = suite;
  const { sessionPath, etags } = await uploadedSession(suite, name, files);
  const before = await snapshot(t, org);
  const refused = await org.admin.post(`${sessionPath}/finalize`, { files: etags });
  expect(refused.status).toBe(400);
  expect(refused.body).toMatchObject({ statusCode: 400, error });
  expect(refused.body.message).toMatch(message);
  expectNoInternals(refused.body);
  expect(await snapshot(t, org)).toEqual(before);
  const session = (await org.admin.get(sessionPath)).body;
  expect(session.state).toBe('open');
  expect(session.files.every((file: { state: string }) => file.state === 'uploading')).toBe(true);
}
