import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ClientCredentials,
  connect,
  ok,
  type RdpClient,
  UploadExpiredError,
  type UploadProgress,
  type UploadState,
  uploadSiteFile,
} from '@reality-data-platform/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrg } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';
import { BLOB_BACKENDS, type BlobBackend } from '../support/uploads.js';

const PART = 5 * 1024 * 1024;

describe.each(BLOB_BACKENDS.filter((backend) => backend.available))(
  'a resumable multipart upload through the SDK, on $name',
  (backend) => {
    let blobStore: Awaited<ReturnType<BlobBackend['start']>>;
    let t: TestPlatform;
    let rdp: RdpClient;
    let siteId: string;
    let dir: string;

    beforeAll(async () => {
      blobStore = await backend.start();
      t = await startPlatform({ ...blobStore.env, RDP_UPLOAD_PART_SIZE_BYTES: String(PART) });
      const org = await createOrg(t);
      const app = await t.admin.createApplication({
        orgId: org.orgId,
        name: 'Uploader',
        flow: 'client-credentials',
        scopes: ['read:basic', 'read:hierarchy', 'write:hierarchy'],
      });
      await t.admin.grantMembership({
        nodeId: org.orgId,
        principalId: app.serviceUserId as string,
        roleId: org.roles['Organization Administrator'] as string,
      });
      rdp = await connect({
        authUrl: t.authUrl,
        tokens: new ClientCredentials({ authUrl: t.authUrl, clientId: app.clientId, clientSecret: app.clientSecret as string }),
      });
      const division = await ok(
        rdp.api.POST('/v1/nodes/{parentId}/division', {
          params: { path: { parentId: rdp.organizationId } },
          body: { name: 'D' },
        }),
      );
      const site = await ok(
        rdp.api.POST('/v1/nodes/{parentId}/site', {
          params: { path: { parentId: division.id } },
          body: { name: 'S', address: 'x' },
        }),
      );
      siteId = site.id;
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-sdk-upload-'));
    });
    afterAll(async () => {
      await t?.close();
      await blobStore?.stop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** A fetch that records the part numbers it PUT. */
    function countingFetch(sent: number[]): typeof fetch {
      return (input, init) => {
        const url = new URL(String(input));
        sent.push(Number(url.searchParams.get('partNumber') ?? '1'));
        return fetch(input, init);
      };
    }

    it('aborted at half, resumes from the stored state, sends only the missing parts, and the bytes match', async () => {
      const file = path.join(dir, 'scan-data.bin');
      const bytes = randomBytes(3 * PART + 1234); // four parts, the last short
      fs.writeFileSync(file, bytes);

      // The first run: one part at a time, stopped once two of the four are in (as a crash would leave it).
      const stop = new AbortController();
      let stored = '';
      const firstSent: number[] = [];
      const interrupted = await uploadSiteFile(rdp, {
        parentId: siteId,
        source: file,
        concurrency: 1,
        signal: stop.signal,
        fetch: countingFetch(firstSent),
        onState: (state) => {
          stored = JSON.stringify(state);
          if (state.kind === 'siteFile' && state.file.done.length === 2) stop.abort();
        },
      }).catch((error: unknown) => error);
      expect((interrupted as Error).name).toBe('AbortError');
      expect(firstSent).toEqual([1, 2]);
      const state = JSON.parse(stored) as UploadState;
      expect(state.kind === 'siteFile' && state.file.done.map((part) => part.partNumber)).toEqual([1, 2]);

      // Nothing is finalized yet: the folder shows no file.
      const before = await ok(
        rdp.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: siteId }, query: { limit: 100 } } }),
      );
      expect(before).toEqual([]);

      // The resume: from the state alone (its path), parts in parallel; only parts 3 and 4 go out.
      const resumedSent: number[] = [];
      const progress: UploadProgress[] = [];
      const finalized = await uploadSiteFile(rdp, {
        parentId: siteId,
        resume: state,
        concurrency: 2,
        fetch: countingFetch(resumedSent),
        onProgress: (step) => progress.push(step),
      });
      expect(resumedSent.sort()).toEqual([3, 4]);
      expect(finalized).toMatchObject({ name: 'scan-data.bin', size: bytes.length, state: 'ready' });
      expect(progress[0]).toEqual({ sentBytes: 2 * PART, totalBytes: bytes.length });
      expect(progress.at(-1)).toEqual({ sentBytes: bytes.length, totalBytes: bytes.length });

      const download = await rdp.fetch(`${rdp.apiUrl}/v1/site-files/${finalized.id}/download`);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    });

    it('refuses to resume from a file that changed since the upload began', async () => {
      const file = path.join(dir, 'changing.bin');
      fs.writeFileSync(file, randomBytes(PART + 10));
      const stop = new AbortController();
      let state: UploadState | undefined;
      await uploadSiteFile(rdp, {
        parentId: siteId,
        source: file,
        concurrency: 1,
        signal: stop.signal,
        onState: (saved) => {
          state = saved;
          if (saved.kind === 'siteFile' && saved.file.done.length === 1) stop.abort();
        },
      }).catch(() => undefined);
      fs.writeFileSync(file, randomBytes(PART + 11));
      await expect(uploadSiteFile(rdp, { parentId: siteId, resume: state })).rejects.toThrow(/bytes now/);
    });

    it('sends a part again after a network failure, and refuses a resume whose addresses expired', async () => {
      const bytes = randomBytes(PART + 4321);
      const sent: number[] = [];
      let failedOnce = false;
      let stored: UploadState | undefined;
      const file = await uploadSiteFile(rdp, {
        parentId: siteId,
        name: 'flaky.bin',
        source: bytes,
        onState: (state) => {
          stored = state;
        },
        fetch: (input, init) => {
          const partNumber = Number(new URL(String(input)).searchParams.get('partNumber'));
          sent.push(partNumber);
          if (partNumber === 2 && !failedOnce) {
            failedOnce = true;
            return Promise.reject(new TypeError('fetch failed'));
          }
          return fetch(input, init);
        },
      });
      expect(sent.sort()).toEqual([1, 2, 2]);
      expect(file).toMatchObject({ name: 'flaky.bin', size: bytes.length, state: 'ready' });

      // A state whose addresses have lapsed cannot go on: the upload must start again.
      const lapsed = structuredClone(stored) as Extract<UploadState, { kind: 'siteFile' }>;
      lapsed.file.done = [];
      lapsed.file.expiresAt = new Date(Date.now() - 1000).toISOString();
      const refused = await uploadSiteFile(rdp, { parentId: siteId, source: bytes, resume: lapsed }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(UploadExpiredError);
    });

    it('uploads bytes from memory in one PUT below the part size', async () => {
      const bytes = randomBytes(4000);
      const sent: number[] = [];
      const file = await uploadSiteFile(rdp, { parentId: siteId, name: 'small.bin', source: bytes, fetch: countingFetch(sent) });
      expect(sent).toEqual([1]);
      expect(file).toMatchObject({ name: 'small.bin', size: 4000, state: 'ready' });
    });
  },
);
