import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareRelease, TESTED_RELEASES } from '../../scripts/releases.mjs';
import { ApiClient } from '../support/fixtures.js';
import { createEmptyDatabase, dropDatabase } from '../support/pg-template.js';
import { freePort } from '../support/ports.js';
import {
  downloadDigest,
  makeReleaseData,
  personSignIn,
  putSiteFile,
  type ReleaseData,
  refreshPerson,
  serviceToken,
} from '../support/release-data.js';
import { type ServerProcess, startServer } from '../support/server-process.js';

/**
 * Upgrades (docs/operations.md, "Upgrades"): the oldest and the latest release, each built from its commit with its
 * own dependencies, makes data on fresh stores; the current code then starts on those stores,
 * migrates them and serves everything the release made (its tokens and passwords included) and
 * takes new writes. On SQLite and, with RDP_TEST_DATABASE_URL, on PostgreSQL.
 */
const onPostgres = process.env.RDP_TEST_DATABASE_URL;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.each(TESTED_RELEASES)('an upgrade from $tag', (release) => {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function stores(): Promise<Record<string, string>> {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `rdp-upgrade-${release.tag}-`));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    if (!onPostgres) return { RDP_DATA_DIR: dataDir };
    const { database, url } = await createEmptyDatabase(onPostgres);
    cleanups.push(() => dropDatabase(onPostgres, database));
    return { RDP_DATA_DIR: dataDir, RDP_DATABASE_URL: url, RDP_DATABASE_SCHEMA_PREFIX: 'rdp' };
  }

  it('serves what the release made, after migrating its stores, and takes new writes', async () => {
    const releaseDir = await prepareRelease(release);
    const port = await freePort();
    // The same public address before and after: the stores keep addresses made from it (apiUrl).
    const env = {
      ...(await stores()),
      RDP_PUBLIC_URL: `http://127.0.0.1:${port}`,
      RDP_LOG_LEVEL: 'warn',
      RDP_RATE_LIMIT_DISABLED: '1',
    };
    let server: ServerProcess | undefined = await startServer(port, env, 60_000, { cwd: releaseDir, args: ['dist/main.js'] });
    cleanups.push(() => server?.stop() ?? Promise.resolve());
    let data: ReleaseData;
    try {
      data = await makeReleaseData(server.origin, releaseDir, env, { twins: release.tag !== 'v0.1.0' });
    } catch (error) {
      throw new Error(`${(error as Error).message}\nthe release's output:\n${server.output().slice(-4000)}`);
    }
    await server.stop();

    server = await startServer(port, env);
    const origin = server.origin;
    const api = new ApiClient(data.apiUrl, await serviceToken(origin, data));

    // The tree, the file's bytes, the group's role: as the release left them.
    const browse = await api.get(`/v1/nodes/${data.orgId}/browse`);
    expect(browse.status).toBe(200);
    expect(browse.body.map((node: { id: string; name: string }) => [node.id, node.name])).toEqual([[data.divisionId, 'North']]);
    const site = await api.get(`/v1/nodes/${data.siteId}`);
    expect(site.body).toMatchObject({ id: data.siteId, name: 'Quay', parentId: data.divisionId });
    const folder = await api.get(`/v1/nodes/${data.folderId}/browse`);
    expect(folder.body.map((node: { id: string }) => node.id)).toEqual([data.file.id]);
    const file = await api.get(`/v1/site-files/${data.file.id}`);
    expect(file.body).toMatchObject({ id: data.file.id, size: data.file.bytes.length, state: 'ready' });
    expect(await downloadDigest(`${data.apiUrl}/v1/site-files/${data.file.id}/download`, api.token as string)).toEqual({
      status: 200,
      sha256: sha256(data.file.bytes),
    });
    const memberships = await api.get(`/v1/nodes/${data.siteId}/memberships`);
    expect(memberships.status).toBe(200);
    expect(JSON.stringify(memberships.body)).toContain(data.groupId);
    expect((await api.get(`/v1/groups/${data.groupId}`)).body).toMatchObject({ id: data.groupId, name: 'Surveyors' });
    if (data.pointOfInterestId) {
      const poi = await api.get(`/v1/twin/${data.siteId}/points-of-interest/${data.pointOfInterestId}`);
      expect(poi.body).toMatchObject({ name: 'Bollard 7', position: { x: 1.5, y: -2, z: 0.25 } });
    }

    // The person: the refresh token the release issued still works, and so does their password.
    const refreshed = await refreshPerson(origin, data);
    const asPerson = new ApiClient(data.apiUrl, refreshed.access_token);
    expect((await asPerson.get('/v1/users/me')).body).toMatchObject({ id: data.person.id, email: data.person.email });
    // What came after the release works on its data: the person's places.
    const places = await asPerson.get('/v1/users/me/places');
    expect(places.body).toMatchObject({ items: [{ node: { id: data.divisionId }, roleId: data.viewerRoleId }], total: 1 });
    const signedIn = await personSignIn(origin, data.codeApp, data.person, data.orgId);
    expect((await new ApiClient(data.apiUrl, signedIn.access_token).get(`/v1/nodes/${data.siteId}`)).status).toBe(200);

    // New writes beside the old data.
    const newSite = await api.post(`/v1/nodes/${data.divisionId}/site`, { name: 'Dock', address: '3 Pier Road' });
    expect(newSite.status).toBe(201);
    const second = await putSiteFile(api, data.folderId, 'second.bin', randomBytes(70_000));
    expect(await downloadDigest(`${data.apiUrl}/v1/site-files/${second.id}/download`, api.token as string)).toEqual({
      status: 200,
      sha256: sha256(second.bytes),
    });
    expect((await api.get(`/v1/nodes/${data.folderId}/browse`)).body).toHaveLength(2);
    await server.stop();
    server = undefined;
  }, 600_000);
});
