import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { etagOfBytes } from '../../src/domain/uploads/etag.js';
import { ApiClient, basicAuthorization } from './fixtures.js';
import { FormAgent, hiddenField, PASSWORD, signInForConsent } from './oauth-flow.js';
import { outputOf } from './process-output.js';

/**
 * What the upgrade test makes with an earlier release and finds again under the current code
 * (docs/operations.md, "Upgrades"): only the contract every release has served since the first
 * (the command line's admin commands, the tree, site files, groups and roles, both OAuth flows),
 * plus a twin's point of interest where the release had twins.
 */
export interface ReleaseData {
  orgId: string;
  apiUrl: string;
  service: { clientId: string; clientSecret: string };
  codeApp: { clientId: string; redirectUri: string };
  person: { id: string; email: string; password: string; refreshToken: string };
  divisionId: string;
  siteId: string;
  folderId: string;
  file: { id: string; bytes: Buffer; etag: string };
  groupId: string;
  viewerRoleId: string;
  pointOfInterestId?: string;
}

const REDIRECT_URI = 'https://app.example.test/callback';
const PERSON_SCOPES = ['read:basic', 'read:hierarchy', 'read:user'];

/** `rdp admin … --json` of the release in `cwd` (its dist/cli/rdp.js) on the stores of `env`. */
export async function releaseAdmin(cwd: string, env: Record<string, string>, ...args: string[]): Promise<any> {
  const child = spawn(process.execPath, ['dist/cli/rdp.js', 'admin', ...args, '--json'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', RDP_LOG_LEVEL: 'silent', ...env },
  });
  const run = await outputOf(child);
  if (run.code !== 0) throw new Error(`rdp admin ${args.join(' ')} exited ${run.code}: ${run.stderr}${run.stdout}`);
  return JSON.parse(run.stdout);
}

async function tokenResponse(origin: string, form: Record<string, string>, authorization?: string): Promise<any> {
  const response = await fetch(`${origin}/auth/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    body: new URLSearchParams(form),
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

/** A service token of the client-credentials application. */
export async function serviceToken(origin: string, data: Pick<ReleaseData, 'service'>): Promise<string> {
  const body = await tokenResponse(
    origin,
    { grant_type: 'client_credentials' },
    basicAuthorization(data.service.clientId, data.service.clientSecret),
  );
  return body.access_token;
}

/** The person signs in on the consent pages and allows; the token response of the code's exchange. */
export async function personSignIn(
  origin: string,
  app: { clientId: string; redirectUri: string },
  person: { email: string; password: string },
  orgId: string,
): Promise<{ access_token: string; refresh_token: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const query = new URLSearchParams({
    response_type: 'code',
    code_challenge_method: 'S256',
    client_id: app.clientId,
    redirect_uri: app.redirectUri,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    state,
  });
  for (const scope of PERSON_SCOPES) query.append('scopes', scope);
  const agent = new FormAgent();
  const page = await signInForConsent(agent, `${origin}/auth/consent?${query}`, person);
  const form = new URLSearchParams({
    csrf_token: hiddenField(page, 'csrf_token'),
    request: hiddenField(page, 'request'),
    decision: 'allow',
    // The first release asked which organization even of a person in one.
    org_id: orgId,
  });
  for (const scope of PERSON_SCOPES) form.append('scopes', scope);
  const answer = await agent.post(`${origin}/auth/consent/decision`, form);
  const redirect = new URL(answer.headers.get('location') ?? '');
  const code = redirect.searchParams.get('code');
  if (answer.status !== 303 || !code || redirect.searchParams.get('state') !== state)
    throw new Error(`the consent decision answered ${answer.status} to ${redirect}`);
  return tokenResponse(origin, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: app.redirectUri,
    code_verifier: verifier,
    client_id: app.clientId,
  });
}

/** Exchanges the person's refresh token (made by whichever release) for fresh tokens. */
export function refreshPerson(origin: string, data: ReleaseData): Promise<{ access_token: string; refresh_token: string }> {
  return tokenResponse(origin, {
    grant_type: 'refresh_token',
    client_id: data.codeApp.clientId,
    refresh_token: data.person.refreshToken,
  });
}

async function created(api: ApiClient, path: string, body: unknown): Promise<any> {
  const answer = await api.post(path, body);
  if (answer.status !== 201 && answer.status !== 200)
    throw new Error(`POST ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Uploads `bytes` as a site file in `parentId` (one PUT to the signed address) and finalizes it. */
export async function putSiteFile(api: ApiClient, parentId: string, name: string, bytes: Buffer) {
  const initiated = await created(api, '/v1/site-files', { parentId, name, size: bytes.length });
  const put = await fetch(initiated.uploadUrl, { method: 'PUT', body: new Uint8Array(bytes) });
  if (put.status !== 200) throw new Error(`the site file's PUT answered ${put.status}: ${await put.text()}`);
  const etag = etagOfBytes(bytes);
  const finalized = await created(api, `/v1/site-files/${initiated.id}/finalize`, { etag: `"${etag}"` });
  return { id: finalized.id as string, bytes, etag };
}

/**
 * Makes the data with the release serving at `origin` (its command line in `cwd`, on the same
 * stores), as an operator and an integrator of that release would have.
 */
export async function makeReleaseData(
  origin: string,
  cwd: string,
  env: Record<string, string>,
  options: { twins: boolean },
): Promise<ReleaseData> {
  const { org, service } = await releaseOrganization(
    cwd,
    env,
    'Upgrade Works',
    'read:basic read:hierarchy write:hierarchy read:user write:user',
  );
  const email = `ada-${randomBytes(4).toString('hex')}@example.test`;
  const person = await releaseAdmin(cwd, env, 'user', 'create', '--email', email, '--password', PASSWORD, '--org', org.id);
  const codeApp = await releaseAdmin(
    cwd,
    env,
    ...['app', 'create', '--org', org.id, '--name', 'Upgrade console', '--flow', 'authorization-code'],
    ...['--redirect-uri', REDIRECT_URI, '--no-secret', '--scopes', PERSON_SCOPES.join(' ')],
  );

  const api = new ApiClient(org.apiUrl, await serviceToken(origin, { service }));
  const division = await created(api, `/v1/nodes/${org.id}/division`, { name: 'North' });
  const site = await created(api, `/v1/nodes/${division.id}/site`, { name: 'Quay', address: '1 Harbour Lane' });
  const folder = await created(api, `/v1/nodes/${site.id}/folder`, { name: 'Scans' });
  const bytes = randomBytes(300_000);
  const file = await putSiteFile(api, folder.id, 'scan.bin', bytes);
  const group = await created(api, '/v1/groups', { name: 'Surveyors' });
  const viewerRoleId = (await created(api, '/v1/roles', { name: 'Site reader', permissions: ['read'] })).id as string;
  const granted = await api.request('PUT', `/v1/nodes/${site.id}/memberships/${group.id}`, { roleId: viewerRoleId });
  if (granted.status >= 300) throw new Error(`the group's role answered ${granted.status}: ${JSON.stringify(granted.body)}`);
  const personRole = await api.request('PUT', `/v1/nodes/${division.id}/memberships/${person.id}`, { roleId: viewerRoleId });
  if (personRole.status >= 300) throw new Error(`the person's role answered ${personRole.status}`);

  let pointOfInterestId: string | undefined;
  if (options.twins) {
    const poi = await created(api, `/v1/twin/${site.id}/points-of-interest`, {
      name: 'Bollard 7',
      position: { x: 1.5, y: -2, z: 0.25 },
    });
    pointOfInterestId = poi.id;
  }

  const app = { clientId: codeApp.clientId as string, redirectUri: REDIRECT_URI };
  const tokens = await personSignIn(origin, app, { email, password: PASSWORD }, org.id);
  return {
    orgId: org.id,
    apiUrl: org.apiUrl,
    service: { clientId: service.clientId, clientSecret: service.clientSecret },
    codeApp: app,
    person: { id: person.id, email, password: PASSWORD, refreshToken: tokens.refresh_token },
    divisionId: division.id,
    siteId: site.id,
    folderId: folder.id,
    file,
    groupId: group.id,
    viewerRoleId,
    pointOfInterestId,
  };
}

/**
 * An organization in region eu and a client-credentials application whose service user
 * administers it, made with the release's own command line as its operator did.
 */
export async function releaseOrganization(cwd: string, env: Record<string, string>, name: string, scopes: string) {
  const org = await releaseAdmin(cwd, env, 'org', 'create', '--name', name, '--region', 'eu');
  const service = await releaseAdmin(
    cwd,
    env,
    ...['app', 'create', '--org', org.id, '--name', `${name} integration`, '--flow', 'client-credentials'],
    ...['--scopes', scopes],
  );
  const grant = [
    'membership',
    'grant',
    '--node',
    org.id,
    '--principal',
    service.serviceUserId,
    '--role',
    'organization-administrator',
  ];
  await releaseAdmin(cwd, env, ...grant);
  return { org: org as { id: string; apiUrl: string }, service: service as { clientId: string; clientSecret: string } };
}

/** The SHA-256 of what `url` answers with `token`, and its status. */
export async function downloadDigest(url: string, token: string): Promise<{ status: number; sha256: string }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, sha256: createHash('sha256').update(bytes).digest('hex') };
}
