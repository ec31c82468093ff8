import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import type { Platform } from '../platform.js';
import type { AdminService } from '../services/admin-service.js';
import { addBackupCommands } from './backup-commands.js';
import { RefusedError, required, wholeNumber } from './cli-errors.js';
import { printResult } from './output.js';

type Options = Record<string, string | boolean | string[] | undefined>;

/**
 * Opens the stores the server uses, never new ones: a store missing where the configuration
 * points means another RDP_DATA_DIR or RDP_DATABASE_URL than the server's.
 */
async function withPlatform<T>(work: (platform: Platform, admin: AdminService) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Loaded here, not at start: the people's commands never need the server's code.
  const { globalStorePresence } = await import('../adapters/db/store-presence.js');
  const { EVERYTHING, openPlatform } = await import('../platform.js');
  const { systemClock } = await import('../ports/clock.js');
  const { adminService } = await import('../composition/platform-services.js');
  const presence = await globalStorePresence(config);
  if (!presence.exists) {
    throw new RefusedError(
      `no store found: looked for ${presence.where}. Start the server first (npm start), or run rdp with the same RDP_DATA_DIR or RDP_DATABASE_URL (and RDP_DATABASE_SCHEMA_PREFIX) as the server.`,
    );
  }
  const platform = await openPlatform(config, systemClock, { opens: EVERYTHING });
  try {
    return await work(platform, adminService(platform));
  } finally {
    await platform.close().catch(() => undefined);
  }
}

/** A leaf admin command: its options, `--json`, and what it does with the admin service. */
function leaf(
  parent: Command,
  name: string,
  description: string,
  options: [flags: string, description: string][],
  run: (admin: AdminService, options: Options, platform: Platform) => Promise<Record<string, unknown>>,
): Command {
  const command = parent.command(name).description(description);
  for (const [flags, text] of options) command.option(flags, text);
  command.option('--json', 'print one JSON object');
  command.action(async (options: Options) => {
    const result = await withPlatform((platform, admin) => run(admin, options, platform));
    printResult(result, Boolean(options.json));
  });
  return command;
}

const str = (options: Options, name: string) => options[name] as string | undefined;
const need = (options: Options, key: string, flag: string) => required(str(options, key), flag);

function limitOrUnlimited(options: Options, key: string, flag: string): number | null {
  const raw = need(options, key, flag);
  return raw === 'unlimited' ? null : (wholeNumber(flag, raw) as number);
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('administer the deployment: works on the server’s stores (the same RDP_DATA_DIR or RDP_DATABASE_URL)');

  const org = admin.command('org').description('organizations: create, limits, storage use');
  leaf(
    org,
    'create',
    'create an organization; prints id, name, region, apiUrl',
    [
      ['--name <name>', 'its name (required)'],
      ['--region <region>', 'ca, us, eu or au (required)'],
      ['--storage-quota <bytes>', 'storage quota in bytes'],
      ['--seat-limit <n>', 'active people at most'],
      ['--email-domains <list>', 'comma-separated e-mail domains'],
    ],
    (service, o) =>
      service.createOrganization({
        name: need(o, 'name', 'name'),
        region: need(o, 'region', 'region'),
        storageQuota: wholeNumber('storage-quota', str(o, 'storageQuota')),
        seatLimit: wholeNumber('seat-limit', str(o, 'seatLimit')),
        emailDomains: str(o, 'emailDomains')?.split(','),
      }),
  );
  leaf(
    org,
    'set-quota',
    'set the storage quota; prints id, storageQuota',
    [
      ['--org <orgId>', 'the organization (required)'],
      ['--storage-quota <bytes>', 'bytes, or unlimited (required)'],
    ],
    async (service, o) => {
      const storageQuota = limitOrUnlimited(o, 'storageQuota', 'storage-quota');
      await service.setOrganizationLimits(need(o, 'org', 'org'), { storageQuota });
      return { id: o.org, storageQuota };
    },
  );
  leaf(
    org,
    'set-rate-limit',
    'set the request bucket and refill (requests per second); prints id, bucket, refillPerSecond',
    [
      ['--org <orgId>', 'the organization (required)'],
      ['--bucket <n>', 'bucket size, or default (required)'],
      ['--refill <n>', 'requests per second, or default (required)'],
    ],
    (service, o) => {
      const limit = (name: 'bucket' | 'refill') => {
        const raw = need(o, name, name);
        return raw === 'default' ? null : (wholeNumber(name, raw) as number);
      };
      return service.setOrganizationRateLimit(need(o, 'org', 'org'), {
        bucket: limit('bucket'),
        refillPerSecond: limit('refill'),
      });
    },
  );
  leaf(
    org,
    'set-processing-slots',
    'limit the queued or running processings and comparisons at once; prints id, processingSlots',
    [
      ['--org <orgId>', 'the organization (required)'],
      ['--slots <n>', 'a number, or unlimited (required)'],
    ],
    async (service, o) => {
      const processingSlots = limitOrUnlimited(o, 'slots', 'slots');
      await service.setOrganizationLimits(need(o, 'org', 'org'), { processingSlots });
      return { id: o.org, processingSlots };
    },
  );
  leaf(
    org,
    'set-seat-limit',
    'limit the active people (service users take no seat); prints id, seatLimit',
    [
      ['--org <orgId>', 'the organization (required)'],
      ['--seat-limit <n>', 'a number, or unlimited (required)'],
    ],
    async (service, o) => {
      const seatLimit = limitOrUnlimited(o, 'seatLimit', 'seat-limit');
      await service.setOrganizationLimits(need(o, 'org', 'org'), { seatLimit });
      return { id: o.org, seatLimit };
    },
  );
  leaf(
    org,
    'storage',
    'bytes active, in the trash, reserved by uploads; the quota',
    [['--org <orgId>', 'the organization (required)']],
    (service, o) => service.storageUse(need(o, 'org', 'org')),
  );

  const user = admin.command('user').description('people');
  leaf(
    user,
    'create',
    'create a user; prints id, email',
    [
      ['--email <email>', 'e-mail address (required)'],
      ['--password <password>', 'password (required)'],
      ['--first-name <name>', 'first name'],
      ['--last-name <name>', 'last name'],
      ['--org <orgId>', 'make the user a member of this organization'],
      ['--org-admin', 'and its administrator'],
    ],
    (service, o) =>
      service.createUser({
        email: need(o, 'email', 'email'),
        password: need(o, 'password', 'password'),
        firstName: str(o, 'firstName'),
        lastName: str(o, 'lastName'),
        orgId: str(o, 'org'),
        orgAdmin: o.orgAdmin === true ? true : undefined,
      }),
  );

  const app = admin.command('app').description('OAuth applications');
  const appCreate = leaf(
    app,
    'create',
    'create an OAuth application; prints clientId, clientSecret (once), serviceUserId, scopes',
    [
      ['--org <orgId>', 'the organization (required)'],
      ['--name <name>', 'its name (required)'],
      ['--flow <flow>', 'client-credentials or authorization-code (required)'],
      ['--native', 'a native application (loopback redirects on any port)'],
      ['--no-secret', 'a public client (authorization code with PKCE only)'],
      ['--scopes <scopes>', 'space-separated scopes (required)'],
    ],
    async (service, o) => {
      const created = await service.createApplication({
        orgId: need(o, 'org', 'org'),
        name: need(o, 'name', 'name'),
        flow: need(o, 'flow', 'flow'),
        native: o.native === true ? true : undefined,
        redirectUris: o.redirectUri as string[] | undefined,
        noSecret: o.secret === false ? true : undefined,
        scopes: need(o, 'scopes', 'scopes').split(/[\s,]+/),
      });
      return Object.fromEntries(Object.entries(created).filter(([, value]) => value !== undefined));
    },
  );
  appCreate.option('--redirect-uri <uri>', 'a redirect URI (repeat for several)', collect);

  const role = admin.command('role').description('roles');
  leaf(
    role,
    'list',
    'list the roles; prints roles: id, name, kind, permissions',
    [['--org <orgId>', 'the organization (required)']],
    async (service, o) => ({ roles: await service.listRoles(need(o, 'org', 'org')) }),
  );

  const scimToken = admin.command('scim-token').description('SCIM tokens for identity providers');
  leaf(
    scimToken,
    'create',
    'create a SCIM token; prints it once with scimUrl',
    [
      ['--org <orgId>', 'the organization (required)'],
      ['--name <name>', 'its name (required)'],
    ],
    async (service, o) => ({
      ...(await service.createScimToken({ orgId: need(o, 'org', 'org'), name: need(o, 'name', 'name') })),
    }),
  );

  const membership = admin.command('membership').description('memberships');
  leaf(
    membership,
    'grant',
    'give a principal a role on a node; prints nodeId, principalId, roleId',
    [
      ['--node <nodeId>', 'the node (required)'],
      ['--principal <principalId>', 'a user, service user or group (required)'],
      ['--role <roleId>', 'the role (required)'],
    ],
    (service, o) =>
      service.grantMembership({
        nodeId: need(o, 'node', 'node'),
        principalId: need(o, 'principal', 'principal'),
        roleId: need(o, 'role', 'role'),
      }),
  );

  const node = admin.command('node').description('nodes');
  leaf(
    node,
    'restrict-sso',
    'require sign-in through an identity provider below a node; prints nodeId, requiredIdentityProvider',
    [
      ['--node <nodeId>', 'the node (required)'],
      ['--provider <name>', 'the provider, or none (required)'],
    ],
    (service, o) => {
      const provider = need(o, 'provider', 'provider');
      return service.restrictNodeToIdentityProvider(need(o, 'node', 'node'), provider === 'none' ? null : provider);
    },
  );

  addBackupCommands(admin);
  leaf(
    admin,
    'verify',
    'check that every blob the stores name exists with its size; prints checked, problems (exit 1 when any)',
    [],
    async (_service, _o, platform) => {
      const { blobVerification } = await import('../composition/platform-services.js');
      const { describeBlobProblem } = await import('../domain/backups/blob-references.js');
      const check = await blobVerification(platform)();
      if (check.problems.length > 0) {
        const lines = check.problems.map(describeBlobProblem);
        throw new RefusedError(`${lines.length} of ${check.checked} blobs are missing or short:\n  ${lines.join('\n  ')}`, check);
      }
      return { checked: check.checked, problems: [] };
    },
  );

  const trash = admin.command('trash').description('the trash');
  leaf(
    trash,
    'purge',
    'purge trash older than 30 days; prints the purged roots per region',
    [],
    async (_service, _o, platform) => {
      const { purgeTrash } = await import('../jobs/housekeeping.js');
      return { purged: await purgeTrash(platform) };
    },
  );
}
