import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import { rowOfObject } from '../../src/adapters/db/repositories/twin-object-rows.js';
import type { NodeRow, RegionalSchema, TwinDraftChangeRow, TwinObjectRow } from '../../src/adapters/db/schema.js';
import { adminService } from '../../src/composition/platform-services.js';
import { ORGANIZATION_ADMINISTRATOR_ROLE_ID } from '../../src/domain/people/roles.js';
import { type MeasurementKind, measuredValue } from '../../src/domain/twins/measurement-values.js';
import type { Vector3 } from '../../src/domain/twins/object-fields.js';
import type { Patch, StoredFields } from '../../src/domain/twins/twin-objects.js';
import type { Platform } from '../../src/platform.js';
import type { BenchClient } from './permission-store.js';

/** Rows go in by the thousand, each batch one statement. */
const BATCH = 500;

async function inBatches<Row>(rows: Row[], write: (batch: Row[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
}

/** An organization with an administrator application (read and write), made in an open platform. */
export async function seedTwinOrganization(platform: Platform): Promise<{ orgId: string; client: BenchClient; root: NodeRow }> {
  const admin = adminService(platform);
  const org = await admin.createOrganization({ name: 'Twin Bench Ltd', region: 'eu' });
  const app = await admin.createApplication({
    orgId: org.id,
    name: 'Twin bench',
    flow: 'client-credentials',
    scopes: ['read:hierarchy', 'write:hierarchy'],
  });
  const userId = app.serviceUserId as string;
  await admin.grantMembership({ nodeId: org.id, principalId: userId, roleId: ORGANIZATION_ADMINISTRATOR_ROLE_ID });
  const root = (await platform.region('eu').nodes.findById(org.id)) as NodeRow;
  return { orgId: org.id, client: { clientId: app.clientId, clientSecret: app.clientSecret as string, userId }, root };
}

function regionDb(platform: Platform): Kysely<RegionalSchema> {
  return platform.region('eu').store.db as Kysely<RegionalSchema>;
}

/** Nodes written straight in the store (a division, sites, a folder and its children). */
export async function insertNodes(platform: Platform, rows: NodeRow[]): Promise<void> {
  await inBatches(rows, (batch) => regionDb(platform).insertInto('nodes').values(batch).execute());
}

/** A point of interest's fields as the API stores them, created at `createdAt`. */
export function pointOfInterestFields(name: string, by: string, createdAt: string, i: number): StoredFields<'pointOfInterest'> {
  return {
    name,
    description: `Bench point ${i}`,
    position: { x: i % 100, y: Math.floor(i / 100), z: 1.5 },
    normal: null,
    viewpoint: null,
    color: '#ff8800',
    icon: null,
    zoneId: null,
    metadataTypeId: null,
    metadata: {},
    createdBy: by,
    updatedBy: by,
    createdAt,
    updatedAt: createdAt,
  };
}

/** `count` live points of interest of the site, created a millisecond apart from `from`; their rows in list order. */
export async function insertPointsOfInterest(
  platform: Platform,
  site: NodeRow,
  by: string,
  count: number,
  from = Date.UTC(2026, 0, 1),
): Promise<TwinObjectRow[]> {
  const rows: TwinObjectRow[] = [];
  for (let i = 0; i < count; i += 1) {
    const createdAt = new Date(from + i).toISOString();
    const fields = pointOfInterestFields(`Point ${String(i).padStart(5, '0')}`, by, createdAt, i);
    rows.push(rowOfObject({ id: randomUUID(), objectType: 'pointOfInterest', fields }, site));
  }
  await inBatches(rows, (batch) => regionDb(platform).insertInto('twin_objects').values(batch).execute());
  return rows;
}

/** The kinds of a bench twin's measurements in turn, with their points: mostly two or three, a few polylines and areas of more. */
const MEASUREMENT_MIX: { kind: MeasurementKind; points: number }[] = [
  { kind: 'distance', points: 2 },
  { kind: 'height', points: 2 },
  { kind: 'angle', points: 3 },
  { kind: 'area', points: 8 },
  { kind: 'polyline', points: 16 },
];

/** A measurement's fields as the API stores them (its value computed by the platform's rule), created at `createdAt`. */
export function measurementFields(name: string, by: string, createdAt: string, i: number): StoredFields<'measurement'> {
  const { kind, points: count } = MEASUREMENT_MIX[i % MEASUREMENT_MIX.length] as (typeof MEASUREMENT_MIX)[number];
  const [x0, y0] = [(i % 100) + 0.123456789, Math.floor(i / 100) + 0.987654321];
  // On a circle of radius 2: a convex polygon for an area, a bend for a polyline, a corner for an angle.
  const points: Vector3[] = Array.from({ length: count }, (_, k) => {
    const a = (2 * Math.PI * k) / Math.max(count, 4);
    return { x: x0 + 2 * Math.cos(a), y: y0 + 2 * Math.sin(a), z: 1.5 + k * 0.25 * Number(kind === 'height') };
  });
  return {
    name,
    kind,
    points,
    ...measuredValue(kind, points),
    description: `Bench measurement ${i}`,
    color: '#ff8800',
    metadataTypeId: null,
    metadata: {},
    createdBy: by,
    updatedBy: by,
    createdAt,
    updatedAt: createdAt,
  };
}

/** `count` live measurements of the site (kinds in turn), created a millisecond apart from `from`; their rows in list order. */
export async function insertMeasurements(
  platform: Platform,
  site: NodeRow,
  by: string,
  count: number,
  from = Date.UTC(2026, 0, 1),
): Promise<TwinObjectRow[]> {
  const rows: TwinObjectRow[] = [];
  for (let i = 0; i < count; i += 1) {
    const fields = measurementFields(`Measurement ${String(i).padStart(5, '0')}`, by, new Date(from + i).toISOString(), i);
    rows.push(rowOfObject({ id: randomUUID(), objectType: 'measurement', fields }, site));
  }
  await inBatches(rows, (batch) => regionDb(platform).insertInto('twin_objects').values(batch).execute());
  return rows;
}

/** A ready model of the organization's asset library, its row written straight in the store (no bytes behind it). */
export async function insertReadyLibraryModel(platform: Platform, orgId: string, by: string): Promise<string> {
  const now = new Date().toISOString();
  const id = randomUUID();
  await regionDb(platform)
    .insertInto('library_models')
    .values({
      id,
      org_id: orgId,
      name: 'Bench pump',
      name_key: 'bench pump',
      description: '',
      status: 'ready',
      file_name: 'pump.glb',
      declared_bytes: 1024,
      reserved_bytes: 0,
      stored_bytes: 1024,
      blob_key: `library/${orgId}/${id}`,
      multipart_upload_id: null,
      upload_expires_at: null,
      etag: '"0123456789abcdef0123456789abcdef"',
      format: 'glb',
      previewable: 1,
      preview_unavailable_reason: null,
      preview_blob_key: null,
      preview_bytes: null,
      thumbnail_blob_key: null,
      thumbnail_bytes: null,
      failure_reason: null,
      created_by: by,
      updated_by: by,
      created_at: now,
      updated_at: now,
      finalized_at: now,
    })
    .execute();
  return id;
}

/** `count` live model assets of the site placing the model, created a millisecond apart from `from`; their rows in list order. */
export async function insertModelAssets(
  platform: Platform,
  site: NodeRow,
  by: string,
  libraryModelId: string,
  count: number,
  from = Date.UTC(2026, 0, 1),
): Promise<TwinObjectRow[]> {
  const rows: TwinObjectRow[] = [];
  for (let i = 0; i < count; i += 1) {
    const createdAt = new Date(from + i).toISOString();
    const fields: StoredFields<'modelAsset'> = {
      libraryModelId,
      name: `Pump ${String(i).padStart(5, '0')}`,
      position: { x: i % 100, y: Math.floor(i / 100), z: 1.5 },
      rotation: { x: 0, y: 0, z: 0.6, w: 0.8 },
      scale: { x: 1, y: 1, z: 1 },
      metadataTypeId: null,
      metadata: {},
      createdBy: by,
      updatedBy: by,
      createdAt,
      updatedAt: createdAt,
    };
    rows.push(rowOfObject({ id: randomUUID(), objectType: 'modelAsset', fields }, site));
  }
  await inBatches(rows, (batch) => regionDb(platform).insertInto('twin_objects').values(batch).execute());
  return rows;
}

/** A draft's change rows written straight in the store (the fold's result: added whole, modified as a patch, removed). */
export async function insertDraftChanges(
  platform: Platform,
  draftId: string,
  changes: { objectId: string; kind: 'added' | 'modified' | 'removed'; fields: Patch<'pointOfInterest'> | null }[],
  now: string,
): Promise<void> {
  const rows: TwinDraftChangeRow[] = changes.map((change) => ({
    id: randomUUID(),
    draft_id: draftId,
    object_id: change.objectId,
    object_type: 'pointOfInterest',
    kind: change.kind,
    fields: change.fields === null ? null : JSON.stringify(change.fields),
    library_model_id: null,
    created_at: now,
    updated_at: now,
  }));
  await inBatches(rows, (batch) => regionDb(platform).insertInto('twin_draft_changes').values(batch).execute());
}

/** A site under a new division of the root, with `children` nodes in a folder of it to browse. */
export function siteRows(
  root: NodeRow,
  name: string,
  children: number,
  now: string,
): { rows: NodeRow[]; site: NodeRow; folder: NodeRow } {
  const division = newNodeRow(root, { kind: 'division', name: `Division of ${name}`, now });
  const site = newNodeRow(division, { kind: 'site', name, now, address: '1 Bench Road' });
  const folder = newNodeRow(site, { kind: 'folder', name: 'Scans', now });
  const rows = [division, site, folder];
  for (let i = 0; i < children; i += 1) {
    rows.push(newNodeRow(folder, { kind: 'pointCloud', name: `Scan ${String(i).padStart(3, '0')}`, now }));
  }
  return { rows, site, folder };
}
