import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PREVIEW_LIBRARY_MODEL } from '../../src/domain/processing/jobs.js';
import type { LibraryModelStatus } from '../../src/domain/records/regional.js';
import { multipartEtag, singlePutEtag } from '../../src/domain/uploads/etag.js';
import type { JobRegistration } from '../../src/jobs/job-handler.js';
import { workerJobs } from '../../src/jobs/start-worker.js';
import type { Platform } from '../../src/platform.js';
import type { JobPayload } from '../../src/ports/job-queue.js';
import type { ApiClient, OrgFixture } from './fixtures.js';
import type { TestPlatform } from './platform.js';
import { type UploadTarget, uploadBytes } from './uploads.js';

/** A small real OBJ: a triangle. */
export function triangleObj(comment = ''): Buffer {
  return Buffer.from(`# ${comment}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n`);
}

const OBJ_HEAD = Buffer.from('# generated OBJ of an exact size\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n');
const PADDING_LINE = 64;

/**
 * The bytes [start, start + length) of an OBJ of `size` bytes: a few v/f lines, then `#` comment
 * lines of 64 bytes to the end (the last one ends with a newline). Made on demand, a part at a
 * time: a file of hundreds of MiB is never held whole, nor kept anywhere.
 */
export function generatedObjSlice(size: number, start: number, length: number): Buffer {
  const slice = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    const at = start + i;
    if (at < OBJ_HEAD.length) slice[i] = OBJ_HEAD[at] as number;
    else {
      const padding = at - OBJ_HEAD.length;
      slice[i] =
        padding % PADDING_LINE === PADDING_LINE - 1 || at === size - 1 ? 0x0a : padding % PADDING_LINE === 0 ? 0x23 : 0x2e;
    }
  }
  return slice;
}

/** A faster fill for large slices: the padding pattern copied line by line. */
export function generatedObjPart(size: number, start: number, length: number): Buffer {
  if (start + length <= OBJ_HEAD.length || length < 4 * PADDING_LINE) return generatedObjSlice(size, start, length);
  const line = Buffer.alloc(PADDING_LINE, 0x2e);
  line[0] = 0x23;
  line[PADDING_LINE - 1] = 0x0a;
  const slice = Buffer.alloc(length);
  let i = 0;
  while (start + i < OBJ_HEAD.length && i < length) {
    slice[i] = OBJ_HEAD[start + i] as number;
    i++;
  }
  while (i < length) {
    const padding = start + i - OBJ_HEAD.length;
    const offset = padding % PADDING_LINE;
    const n = Math.min(PADDING_LINE - offset, length - i);
    line.copy(slice, i, offset, offset + n);
    i += n;
  }
  if (start + length === size) slice[length - 1] = 0x0a;
  return slice;
}

/**
 * Uploads bytes made part by part (`bytesOf(start, length)`) to the addresses an initiation
 * answered, one part in memory at a time; answers the ETag the store should have.
 */
export async function uploadGenerated(target: UploadTarget, size: number, bytesOf: (start: number, length: number) => Buffer) {
  const md5 = (data: Buffer) => createHash('md5').update(data).digest();
  if (target.uploadUrl) {
    const body = bytesOf(0, size);
    const response = await fetch(target.uploadUrl, { method: 'PUT', body: new Uint8Array(body) });
    if (response.status !== 200) throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
    return singlePutEtag(md5(body));
  }
  const digests: Buffer[] = [];
  const partSize = target.partSize ?? 0;
  for (const part of target.parts ?? []) {
    const body = bytesOf((part.partNumber - 1) * partSize, part.size);
    const response = await fetch(part.uploadUrl, { method: 'PUT', body: new Uint8Array(body) });
    if (response.status !== 200) throw new Error(`part ${part.partNumber} answered ${response.status}: ${await response.text()}`);
    digests.push(md5(body));
  }
  return multipartEtag(digests);
}

/** A small STEP file (ISO 10303-21, not IFC): a library format with no preview, so finalize makes it ready at once. */
export function stepFile(name = 'pump'): Buffer {
  return Buffer.from(
    `ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION(('${name}'),'2;1');\nFILE_NAME('${name}.step','2026-11-25',(''),(''),'','','');\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;\nDATA;\n#1=CARTESIAN_POINT('',(0.,0.,0.));\nENDSEC;\nEND-ISO-10303-21;\n`,
  );
}

const LIBRARY_WRITER_SCOPES = 'read:basic read:assetlibrary write:assetlibrary';
const libraryWriters = new WeakMap<OrgFixture, Promise<ApiClient>>();

/** The organization's client for library writes: an Organization Administrator with the library's scopes. */
export function libraryWriter(org: OrgFixture): Promise<ApiClient> {
  let writer = libraryWriters.get(org);
  if (!writer) {
    writer = org
      .serviceClient({ scopes: LIBRARY_WRITER_SCOPES, roleName: 'Organization Administrator' })
      .then(({ client }) => client);
    libraryWriters.set(org, writer);
  }
  return writer;
}

/**
 * A model of the organization's library made through the routes, in the status asked for:
 * `pendingUpload` (created, never finalized), `processing` (an OBJ finalized: its preview job
 * waits for a worker, which these platforms do not run) or `ready` (a STEP file, which has no
 * preview: ready at finalize). A `failed` model is what the worker makes of a processing one it
 * cannot convert; suites without a worker get it with setLibraryModelStatus.
 */
export async function createLibraryModel(
  org: OrgFixture,
  { status = 'ready', name = 'Pump P-100' }: { status?: Exclude<LibraryModelStatus, 'failed'>; name?: string } = {},
): Promise<{ id: string; name: string; status: LibraryModelStatus }> {
  const writer = await libraryWriter(org);
  const bytes = status === 'processing' ? triangleObj(name) : stepFile(name);
  const fileName = status === 'processing' ? 'pump.obj' : 'pump.step';
  const created = await writer.post('/v1/asset-library/models', { name, fileName, size: bytes.length });
  if (created.status !== 201) throw new Error(`model create answered ${created.status}: ${JSON.stringify(created.body)}`);
  if (status === 'pendingUpload') return created.body;
  const { etag } = await uploadBytes(created.body, bytes);
  const finalized = await writer.post(`/v1/asset-library/models/${created.body.id}/finalize`, { etag: `"${etag}"` });
  if (finalized.status !== 200 || finalized.body.status !== status) {
    throw new Error(`finalize answered ${finalized.status}: ${JSON.stringify(finalized.body)}`);
  }
  return finalized.body;
}

/**
 * Sets a model's status in the database: for states the routes do not reach in a suite without a
 * worker (`failed`), or not at all (a ready model is never made not ready again; the publish
 * re-checks it anyway, as a guard).
 */
export async function setLibraryModelStatus(t: TestPlatform, org: OrgFixture, id: string, status: LibraryModelStatus) {
  await t.platform.regions[org.region].store.db.updateTable('library_models').set({ status }).where('id', '=', id).execute();
}

/**
 * Deletes a model's row in the database, past the route's refusal of a placed model: how the
 * publish's guard against a model gone meanwhile is tested (the route cannot get there).
 */
export async function deleteLibraryModelRow(t: TestPlatform, org: OrgFixture, id: string) {
  await t.platform.regions[org.region].store.db.deleteFrom('library_models').where('id', '=', id).execute();
}

/** The preview job kind (handler and failure) as the worker builds it over `platform`, whose blob store may be a test's. */
export function previewJob(platform: Platform): JobRegistration<JobPayload<typeof PREVIEW_LIBRARY_MODEL>> {
  const job = workerJobs(platform).find((registration) => registration.kind === PREVIEW_LIBRARY_MODEL);
  if (!job) throw new Error('the worker runs no library model preview job');
  return job;
}

/**
 * Runs the preview worker's handler for one model now, as the worker would when it claims the
 * job (the real conversion, blob writes and row update), for suites that check what it leaves
 * without waiting on a polling worker.
 */
export async function runPreview(t: TestPlatform, org: OrgFixture, modelId: string): Promise<void> {
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'rdp-preview-'));
  try {
    await previewJob(t.platform).handler(
      { region: org.region, modelId },
      {
        jobId: 'run-in-test',
        heartbeat: async () => undefined,
        signal: new AbortController().signal,
        workDir: async () => workDir,
      },
    );
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}
