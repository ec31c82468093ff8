import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import type { NodeRow, RegionalSchema, TwinObjectRow } from '../../src/adapters/db/schema.js';
import { adminService } from '../../src/composition/platform-services.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../../src/domain/people/roles.js';
import type { Platform } from '../../src/platform.js';
import type { BenchClient } from './permission-store.js';

/** What the business-object benchmark asks for. */
export interface BusinessObjectStore {
  orgId: string;
  objects: number;
  sites: number;
  /** Organization Administrator on the organization node. */
  admin: BenchClient;
  /** Viewer on one division: a tenth of the sites (rounded up). */
  user: BenchClient;
}

const SITE_OBJECTS = 1000;
const DIVISIONS = 10;
const BATCH = 500;

const KINDS = [
  ['Pump', 'P'],
  ['Valve', 'V'],
  ['Tank', 'T'],
  ['Compressor', 'C'],
  ['Heat exchanger', 'E'],
  ['Motor', 'M'],
  ['Filter', 'F'],
  ['Boiler', 'B'],
  ['Fan', 'K'],
  ['Sensor', 'S'],
  ['Switchboard', 'Q'],
  ['Conveyor', 'R'],
] as const;
const AREAS = ['North hall', 'South yard', 'East wing', 'West wing', 'Roof', 'Basement', 'Plant room', 'Loading bay'];

/** Names of a kind of their own, the first objects' in every store: what a fuzzy search for one thing finds. */
export const PLANTED = [
  'Cryogenic air separation unit ASU-2',
  'Emergency diesel generator EDG-1',
  'Demineralised water skid DW-3',
  'Flare knockout drum FKD-9',
  'Ammonia refrigeration chiller AR-4',
];

/**
 * The name of the object numbered `serial` (after the planted ones): "Pump East wing P-000417", its tag unique. Objects
 * 0 to 999 exist in every store of 1,000 objects or more, so a search for one of them finds the
 * same objects in a small and a large store.
 */
export function objectName(serial: number): string {
  const planted = PLANTED[serial];
  if (planted !== undefined) return planted;
  const [kind, letter] = KINDS[serial % KINDS.length] as readonly [string, string];
  return `${kind} ${AREAS[(serial * 7) % AREAS.length]} ${letter}-${String(serial).padStart(6, '0')}`;
}

/**
 * An organization of `objects` live twin objects straight in the store (half assets, half points
 * of interest), on sites of 1,000 objects spread over 10 divisions, created and changed at
 * scattered instants; an administrator, and a user who reads one division.
 */
export async function seedBusinessObjects(platform: Platform, objects: number): Promise<BusinessObjectStore> {
  const admin = adminService(platform);
  const org = await admin.createOrganization({ name: 'Search Bench Ltd', region: 'eu' });
  const client = async (name: string) => {
    const app = await admin.createApplication({ orgId: org.id, name, flow: 'client-credentials', scopes: ['read:hierarchy'] });
    return { clientId: app.clientId, clientSecret: app.clientSecret as string, userId: app.serviceUserId as string };
  };
  const adminClient = await client('Bench admin');
  await admin.grantMembership({ nodeId: org.id, principalId: adminClient.userId, roleId: ORGANIZATION_ADMINISTRATOR_ROLE_ID });
  const userClient = await client('Bench user');
  const viewer = (await admin.listRoles(org.id)).find((role) => role.name === 'Viewer')?.id as string;

  const region = platform.region('eu');
  const db = region.store.db as Kysely<RegionalSchema>;
  const root = (await region.nodes.findById(org.id)) as NodeRow;
  const now = new Date().toISOString();
  const divisions = Array.from({ length: DIVISIONS }, (_, d) =>
    newNodeRow(root, { kind: 'division', name: `Division ${d}`, now }),
  );
  await db.insertInto('nodes').values(divisions).execute();
  await admin.grantMembership({ nodeId: (divisions[0] as NodeRow).id, principalId: userClient.userId, roleId: viewer });

  const sites: NodeRow[] = [];
  for (let s = 0; s * SITE_OBJECTS < objects; s += 1) {
    sites.push(
      newNodeRow(divisions[s % DIVISIONS] as NodeRow, { kind: 'site', name: `Site ${s}`, now, address: '1 Bench Road' }),
    );
  }
  await db.insertInto('nodes').values(sites).execute();

  const creators = [adminClient.userId, userClient.userId, randomUUID(), randomUUID()];
  const start = Date.UTC(2025, 0, 1);
  let rows: TwinObjectRow[] = [];
  for (let serial = 0; serial < objects; serial += 1) {
    const site = sites[Math.floor(serial / SITE_OBJECTS)] as NodeRow;
    // Instants in no order shared with the names (a multiplicative hash of the serial).
    const created = new Date(start + ((serial * 2654435761) % 31_536_000_000)).toISOString();
    const updated = new Date(Date.parse(created) + ((serial * 40503) % 86_400_000)).toISOString();
    const asset = serial % 2 === 0;
    const name = objectName(serial);
    rows.push({
      id: randomUUID(),
      org_id: org.id,
      site_id: site.id,
      object_type: asset ? 'asset' : 'pointOfInterest',
      name,
      name_key: name.toLowerCase(),
      description: '',
      body: asset
        ? '{"volume":{"boxes":[{"center":{"x":0,"y":0,"z":0},"size":{"x":1,"y":1,"z":1},"rotation":{"x":0,"y":0,"z":0,"w":1}}]}}'
        : '{"position":{"x":1,"y":2,"z":3}}',
      parent_zone_id: null,
      zone_id: null,
      metadata_type_id: null,
      metadata: '{}',
      library_model_id: null,
      created_by: creators[serial % creators.length] as string,
      updated_by: creators[serial % creators.length] as string,
      created_at: created,
      updated_at: updated,
    });
    if (rows.length === BATCH) {
      await db.insertInto('twin_objects').values(rows).execute();
      rows = [];
    }
  }
  if (rows.length) await db.insertInto('twin_objects').values(rows).execute();
  return { orgId: org.id, objects, sites: sites.length, admin: adminClient, user: userClient };
}
