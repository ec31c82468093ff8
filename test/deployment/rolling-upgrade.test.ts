import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EARLIER_RELEASES, prepareRelease } from '../../scripts/releases.mjs';
import { createDeployment, type DeployedProcess, type Deployment, eventually, probeReady } from '../support/deployment.js';
import { ApiClient, type ApiResponse } from '../support/fixtures.js';
import { type NginxFront, nginxAvailable, startNginx } from '../support/nginx-front.js';
import { usingPostgres } from '../support/platform.js';
import { releaseOrganization, serviceToken } from '../support/release-data.js';
import { countedLoad, type LoadTally } from './support/scale-out-helpers.js';

/**
 * A rolling upgrade (docs/upgrades.md): two copies of the last release behind nginx, on one
 * PostgreSQL schema prefix, S3 and Redis, are replaced one at a time by the current code while
 * clients write through nginx, each taken out of nginx before it stops and put back once the new
 * one is ready (open-source nginx cannot pass on a write whose connection the stopping copy closed
 * under it). The first new copy migrates the stores while the old one still
 * serves on them: the migrations since the release only add (expand), so the old code keeps
 * working. No request fails, and every write that was answered is there at the end.
 */
const REGION = 'eu';
const previous = EARLIER_RELEASES[EARLIER_RELEASES.length - 1] as (typeof EARLIER_RELEASES)[number];

/**
 * A request on a connection of its own (Connection: close). nginx's reload closes the idle
 * client connections of its old workers, and a client that sends on one at that instant gets no
 * answer: that is between the client and nginx (docs/upgrades.md), so the load here keeps none.
 */
function onFreshConnection(url: string, token: string, method: string, body?: unknown): Promise<ApiResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        agent: false,
        headers: {
          authorization: `Bearer ${token}`,
          connection: 'close',
          ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => {
          const json = (response.headers['content-type'] ?? '').includes('json') && text;
          resolve({ status: response.statusCode ?? 0, body: json ? JSON.parse(text) : text, headers: new Headers() });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

describe.skipIf(!usingPostgres || !nginxAvailable)(`a rolling upgrade from ${previous.tag} behind nginx`, () => {
  let deployment: Deployment;
  let copies: DeployedProcess[];
  let front: NginxFront;
  let releaseDir: string;

  /** Both upstreams on both copies; `out` marked down (docs/upgrades.md: out of nginx before it stops). */
  const upstreams = (out?: DeployedProcess) => {
    const servers = copies.map((copy) => `127.0.0.1:${copy.port}${copy === out ? ' down' : ''}`);
    return { rdp_auth: servers, rdp_api_eu: servers };
  };

  beforeAll(async () => {
    releaseDir = await prepareRelease(previous);
    // No request budget: the load measures lost requests, not the organization's rate limit (a
    // quiet machine's 4 clients outrun its default refill of 20 a second and met 429s).
    deployment = await createDeployment({
      env: { RDP_SHUTDOWN_GRACE_SECONDS: '10', RDP_TRUST_PROXY: '127.0.0.1', RDP_RATE_LIMIT_DISABLED: '1' },
    });
    copies = [
      await deployment.add({ name: 'copy-1', roles: 'auth,api,worker', serverDir: releaseDir }),
      await deployment.add({ name: 'copy-2', roles: 'auth,api,worker', serverDir: releaseDir }),
    ];
    for (const copy of copies) copy.start();
    try {
      await Promise.all(copies.map((copy) => copy.waitReady(60_000)));
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${deployment.report()}`);
    }
    front = await startNginx(deployment.frontPort, upstreams());
  }, 300_000);

  afterAll(async () => {
    await front?.stop();
    await deployment?.close();
  });

  it('loses no request and no write while each copy is replaced by the current code', async () => {
    // The organization made with the release's own command line, as its operator did.
    const cliEnv = { ...deployment.env, RDP_DATA_DIR: path.join(copies[0]?.dir ?? releaseDir, 'release-cli') };
    const { org, service } = await releaseOrganization(
      releaseDir,
      cliEnv,
      'Rolling',
      'read:basic read:hierarchy write:hierarchy',
    );
    const token = await serviceToken(front.origin, { service });
    const base = `${front.origin}/${REGION}/reality`;
    const api = new ApiClient(base, token);
    const division = await api.post(`/v1/nodes/${org.id}/division`, { name: 'Division' });
    const site = await api.post(`/v1/nodes/${division.body.id}/site`, { name: 'Site', address: '1 Main St' });
    expect(site.status).toBe(201);

    // Writers make folders with names of their own; readers browse. Each answered write is kept.
    const written = new Map<string, string>();
    let next = 0;
    const write = async () => {
      next += 1;
      const name = `folder-${next}`;
      const answer = await onFreshConnection(`${base}/v1/nodes/${site.body.id}/folder`, token, 'POST', { name });
      if (answer.status === 201) written.set(answer.body.id, name);
      return answer;
    };
    const tally: LoadTally = { statuses: new Map(), failures: [] };
    let upgraded = false;
    const load = countedLoad(
      [write, () => onFreshConnection(`${base}/v1/nodes/${site.body.id}/browse?limit=10`, token, 'GET')],
      { requests: 50_000, concurrency: 4, pauseMs: 20, until: () => upgraded, after: 100 },
      tally,
    );
    await eventually(
      async () => (written.size >= 20 ? true : undefined),
      30_000,
      () => 'no write was answered',
    );

    for (const copy of copies) {
      await front.reconfigure(upstreams(copy));
      const exit = await copy.signal('SIGTERM', 20_000);
      expect(exit, `${copy.name} exits on SIGTERM within its grace period`).toMatchObject({ code: 0 });
      copy.serverDir = path.resolve(import.meta.dirname, '../..');
      copy.start();
      try {
        await copy.waitReady(60_000);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${deployment.report()}`);
      }
      await front.reconfigure(upstreams());
    }
    const writtenWhenUpgraded = written.size;
    upgraded = true;
    const sent = await load;

    expect(tally.failures, `nginx:\n${front.errors()}`).toEqual([]);
    expect([...tally.statuses.keys()].sort()).toEqual([200, 201]);
    expect((tally.statuses.get(200) ?? 0) + (tally.statuses.get(201) ?? 0)).toBe(sent);
    expect(written.size, 'writes went on after both copies were replaced').toBeGreaterThan(writtenWhenUpgraded);

    // Every answered write is there, and nothing else: read page by page through the new code.
    const found = new Map<string, string>();
    for (let offset = 0; ; offset += 500) {
      const page = await api.get(`/v1/nodes/${site.body.id}/browse?limit=500&offset=${offset}`);
      expect(page.status).toBe(200);
      for (const node of page.body as { id: string; name: string }[]) found.set(node.id, node.name);
      if (page.body.length < 500) break;
    }
    expect(found).toEqual(written);
    // The copies run the current code: what came after the release answers.
    expect((await api.get('/v1/users/me/places')).status).toBe(200);
    for (const copy of copies) expect(await probeReady(copy.origin)).toBe(200);
  }, 300_000);
});
