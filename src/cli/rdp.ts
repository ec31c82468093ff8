#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config/config.js';
import { ApiError } from '../domain/errors.js';
import { purgeTrash } from '../jobs/housekeeping.js';
import { EVERYTHING, openPlatform, type Platform } from '../platform.js';
import { systemClock } from '../ports/clock.js';
import { AdminService } from '../services/admin-service.js';

const USAGE = `usage: rdp admin <command> [options] [--json]

  org create --name N --region ca|us|eu|au [--storage-quota BYTES] [--seat-limit N] [--email-domains a.com,b.com]
  org set-quota --org ORG_ID --storage-quota BYTES|unlimited
  org set-rate-limit --org ORG_ID --bucket N|default --refill N|default   (refill: requests per second)
  org set-processing-slots --org ORG_ID --slots N|unlimited   (queued or running processings at once)
  org set-seat-limit --org ORG_ID --seat-limit N|unlimited   (active people; service users take no seat)
  org storage --org ORG_ID   (bytes active, in the trash, reserved by uploads; the quota)
  user create --email E --password P [--first-name F] [--last-name L] [--org ORG_ID] [--org-admin]
  app create --org ORG_ID --name N --flow client-credentials|authorization-code [--native]
             [--redirect-uri URI]... [--no-secret] --scopes "s1 s2"
  role list --org ORG_ID
  scim-token create --org ORG_ID --name N   (prints the token once; give it and scimUrl to the identity provider)
  membership grant --node NODE_ID --principal PRINCIPAL_ID --role ROLE_ID
  node restrict-sso --node NODE_ID --provider NAME|none
  trash purge

The commands work on the stores the server uses: set the same RDP_DATA_DIR or RDP_DATABASE_URL.`;

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  region: { type: 'string' },
  'storage-quota': { type: 'string' },
  'seat-limit': { type: 'string' },
  'email-domains': { type: 'string' },
  email: { type: 'string' },
  password: { type: 'string' },
  'first-name': { type: 'string' },
  'last-name': { type: 'string' },
  org: { type: 'string' },
  'org-admin': { type: 'boolean' },
  flow: { type: 'string' },
  native: { type: 'boolean' },
  'redirect-uri': { type: 'string', multiple: true },
  'no-secret': { type: 'boolean' },
  scopes: { type: 'string' },
  node: { type: 'string' },
  principal: { type: 'string' },
  role: { type: 'string' },
  bucket: { type: 'string' },
  refill: { type: 'string' },
  provider: { type: 'string' },
  slots: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function wholeNumber(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

async function run(platform: Platform, command: string, values: Values): Promise<Record<string, unknown>> {
  const admin = new AdminService(platform);
  switch (command) {
    case 'org create':
      return admin.createOrganization({
        name: required(values, 'name'),
        region: required(values, 'region'),
        storageQuota: wholeNumber('storage-quota', values['storage-quota']),
        seatLimit: wholeNumber('seat-limit', values['seat-limit']),
        emailDomains: values['email-domains']?.split(','),
      });
    case 'org set-quota': {
      const raw = required(values, 'storage-quota');
      const storageQuota = raw === 'unlimited' ? null : (wholeNumber('storage-quota', raw) as number);
      await admin.setOrganizationLimits(required(values, 'org'), { storageQuota });
      return { id: values.org, storageQuota };
    }
    case 'org set-processing-slots': {
      const raw = required(values, 'slots');
      const processingSlots = raw === 'unlimited' ? null : (wholeNumber('slots', raw) as number);
      await admin.setOrganizationLimits(required(values, 'org'), { processingSlots });
      return { id: values.org, processingSlots };
    }
    case 'org set-seat-limit': {
      const raw = required(values, 'seat-limit');
      const seatLimit = raw === 'unlimited' ? null : (wholeNumber('seat-limit', raw) as number);
      await admin.setOrganizationLimits(required(values, 'org'), { seatLimit });
      return { id: values.org, seatLimit };
    }
    case 'org storage':
      return admin.storageUse(required(values, 'org'));
    case 'org set-rate-limit': {
      const limit = (name: 'bucket' | 'refill') => {
        const raw = required(values, name);
        return raw === 'default' ? null : (wholeNumber(name, raw) as number);
      };
      return admin.setOrganizationRateLimit(required(values, 'org'), {
        bucket: limit('bucket'),
        refillPerSecond: limit('refill'),
      });
    }
    case 'user create':
      return admin.createUser({
        email: required(values, 'email'),
        password: required(values, 'password'),
        firstName: values['first-name'],
        lastName: values['last-name'],
        orgId: values.org,
        orgAdmin: values['org-admin'],
      });
    case 'app create': {
      const created = await admin.createApplication({
        orgId: required(values, 'org'),
        name: required(values, 'name'),
        flow: required(values, 'flow'),
        native: values.native,
        redirectUris: values['redirect-uri'],
        noSecret: values['no-secret'],
        scopes: required(values, 'scopes').split(/[\s,]+/),
      });
      return Object.fromEntries(Object.entries(created).filter(([, value]) => value !== undefined));
    }
    case 'scim-token create':
      return { ...(await admin.createScimToken({ orgId: required(values, 'org'), name: required(values, 'name') })) };
    case 'role list':
      return { roles: await admin.listRoles(required(values, 'org')) };
    case 'membership grant':
      return admin.grantMembership({
        nodeId: required(values, 'node'),
        principalId: required(values, 'principal'),
        roleId: required(values, 'role'),
      });
    case 'node restrict-sso': {
      const provider = required(values, 'provider');
      return admin.restrictNodeToIdentityProvider(required(values, 'node'), provider === 'none' ? null : provider);
    }
    case 'trash purge':
      return { purged: await purgeTrash(platform) };
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

function print(result: Record<string, unknown>, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    process.stdout.write(`${key}: ${typeof value === 'object' ? JSON.stringify(value, null, 2) : value}\n`);
  }
}

async function main(argv: string[]): Promise<number> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`rdp: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] !== 'admin' || positionals.length !== 3) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const command = positionals.slice(1).join(' ');
  let platform: Platform | undefined;
  try {
    platform = await openPlatform(loadConfig(), systemClock, { opens: EVERYTHING });
    print(await run(platform, command, values), Boolean(values.json));
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`rdp: ${error.message}`);
      return 2;
    }
    if (error instanceof ApiError) {
      const body = error.toBody();
      if (values.json) process.stdout.write(`${JSON.stringify(body)}\n`);
      console.error(`rdp: ${error.message}`);
      return 1;
    }
    // Anything else (a store that cannot be reached, say): one line, not a stack trace.
    console.error(`rdp: failed: ${describe(error)}`);
    return 1;
  } finally {
    await platform?.close().catch(() => undefined);
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

process.exitCode = await main(process.argv.slice(2));
