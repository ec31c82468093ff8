import { fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FilesystemBlobStore } from '../../src/adapters/blobs/filesystem-blob-store.js';
import { etagOfBytes } from '../../src/domain/uploads/etag.js';

/**
 * Crash safety of the filesystem store: a writer killed with SIGKILL mid-write leaves the
 * previous object intact under its key (never half a file), its leftovers are swept at the
 * next start, and metadata that does not belong to the file under the key is not believed.
 */
const KEY = 'crash/node-1/object.bin';
let root: string;
let store: FilesystemBlobStore;

const open = () =>
  FilesystemBlobStore.open({
    root,
    publicBaseUrl: 'http://127.0.0.1:1/blob',
    signingKey: Buffer.alloc(32, 1),
    partSize: 5 * 1024 * 1024,
  });
const tmpFiles = () => fs.readdirSync(path.join(root, 'tmp'));
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-crash-'));
  store = await open();
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function grownTempFile(minBytes: number): Promise<string> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    for (const name of tmpFiles()) {
      const stat = fs.statSync(path.join(root, 'tmp', name), { throwIfNoEntry: false });
      if (stat && stat.size >= minBytes) return name;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the writer never got far enough');
}

describe('the filesystem blob store killed mid-write', () => {
  it('keeps the previous object under the key and sweeps the half-written file at the next start', async () => {
    const previous = randomBytes(64 * 1024);
    const before = await store.write(KEY, previous);

    const child = fork(path.resolve('test/blobs/support/write-blob-child.ts'), [root, KEY], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    const temp = await grownTempFile(16 * 1024 * 1024);
    expect(temp.startsWith(`${child.pid}-`)).toBe(true);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // Under the final name: the previous bytes and their metadata, untouched.
    expect(md5(fs.readFileSync(path.join(root, 'objects', KEY)))).toBe(md5(previous));
    expect(await store.head(KEY)).toEqual(before);
    expect(tmpFiles()).toContain(temp);

    // A file of a live writer (this process) is left alone; the dead one's is removed.
    const ours = path.join(root, 'tmp', `${process.pid}-live`);
    fs.writeFileSync(ours, 'in progress');
    await open();
    expect(tmpFiles()).toEqual([`${process.pid}-live`]);
    fs.rmSync(ours);
  });

  it('recomputes an ETag whose metadata is missing or belongs to another file', async () => {
    const data = randomBytes(10_000);
    await store.write(KEY, data);
    fs.rmSync(path.join(root, 'meta', `${KEY}.json`));
    expect(await store.head(KEY)).toEqual({ size: data.length, etag: etagOfBytes(data) });
    // Another file of the same size renamed in (a crash between the two renames of a write).
    const other = randomBytes(10_000);
    const elsewhere = path.join(root, 'tmp', `${process.pid}-other`);
    fs.writeFileSync(elsewhere, other);
    fs.renameSync(elsewhere, path.join(root, 'objects', KEY));
    expect(await store.head(KEY)).toEqual({ size: other.length, etag: etagOfBytes(other) });
  });

  it('forgets a part whose writer was killed mid-part, keeps the others, and completes once it is sent again', async () => {
    const MIB = 1024 * 1024;
    const key = 'crash/node-2/scan.e57';
    const size = 5 * MIB + 1000;
    const plan = await store.beginUpload(key, size, new Date(Date.now() + 3600_000));
    if (plan.kind !== 'multipart') throw new Error('expected multipart');
    const data = randomBytes(size);
    const grant = (partNumber: number) => ({
      method: 'PUT' as const,
      key,
      size: plan.parts[partNumber - 1]?.size,
      uploadId: plan.uploadId,
      partNumber,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    await store.receive(grant(2), Readable.from([data.subarray(5 * MIB)]));
    // Part 1 is in once already: the killed writer sends it again.
    await store.receive(grant(1), Readable.from([data.subarray(0, 5 * MIB)]));

    const child = fork(path.resolve('test/blobs/support/write-part-child.ts'), [root, key, plan.uploadId, '1', String(5 * MIB)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    // Killed once the first MiB of its part is in the assembly file (random bytes before).
    const assembly = path.join(root, 'uploads', plan.uploadId, 'object');
    const probe = Buffer.alloc(16);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const fd = fs.openSync(assembly, 'r');
      fs.readSync(fd, probe, 0, probe.length, MIB);
      fs.closeSync(fd);
      if (probe.every((byte) => byte === 0xab)) break;
      if (Date.now() > deadline) throw new Error('the part writer never got far enough');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    // After a restart: the cut part is missing (its first sending's record went before the
    // rewrite, and half of the rewrite is never believed), the other part kept.
    const restarted = await open();
    expect(await restarted.completeUpload(key, { uploadId: plan.uploadId, size })).toBeUndefined();
    await restarted.receive(grant(1), Readable.from([data.subarray(0, 5 * MIB)]));
    const expected = { size, etag: etagOfBytes(data, 5 * MIB) };
    expect(await restarted.completeUpload(key, { uploadId: plan.uploadId, size })).toEqual(expected);
    expect(md5(fs.readFileSync(path.join(root, 'objects', key)))).toBe(md5(data));
    expect(await restarted.head(key)).toEqual(expected);
  });
});
