import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { DATA_KINDS } from '../../src/domain/nodes/hierarchy.js';

/** Where a node stands, enough to place children under it. */
export interface Placed {
  id: string;
  path: string;
  depth: number;
  siteId: string | null;
}

const AREAS = [
  'North facade',
  'South facade',
  'East wing',
  'West wing',
  'Roof',
  'Basement',
  'Atrium',
  'Car park',
  'Plant room',
  'Lobby',
];
const ITEM_LABELS: Record<string, string> = {
  dataBundle: 'Capture',
  siteFile: 'Drawing',
  pointCloud: 'Point cloud',
  mesh: 'Mesh',
  twin: 'Twin',
  dataSource: 'Feed',
  planningProject: 'Plan',
};
const STREETS = ['Harbour Road', 'King Street', 'Station Avenue', 'Mill Lane', 'Bridge Street', 'Park Row'];

/**
 * Writes nodes straight into a regional SQLite store, in the schema's exact shape (path, depth,
 * site_id, name_key), in one transaction: a million rows in well under two minutes, where the API
 * would take hours. The organization node must already exist (AdminService made it).
 */
export class BulkTree {
  private readonly db: SQLite.Database;
  private readonly insert: SQLite.Statement;
  private serial = 0;
  count = 0;
  readonly org: Placed;

  constructor(file: string, orgId: string) {
    this.db = new SQLite(file);
    // No journal while the store is built (nothing else has it open); WAL again at commit().
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -1000000');
    this.insert = this.db.prepare(
      `INSERT INTO nodes (id, org_id, parent_id, kind, name, name_key, address, site_id, path, depth, size_bytes,
         is_processing, is_failed, trashed_at, trash_root_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, NULL, NULL, ?, ?)`,
    );
    this.org = { id: orgId, path: `/${orgId}/`, depth: 0, siteId: null };
    this.db.exec('BEGIN');
  }

  add(parent: Placed, kind: string, name: string, address: string | null = null): Placed {
    const id = randomUUID();
    const now = new Date(Date.UTC(2024, 0, 1) + this.count * 1000).toISOString();
    const siteId = kind === 'site' ? id : parent.siteId;
    const path = `${parent.path}${id}/`;
    const size = kind === 'site' || kind === 'folder' || kind === 'division' ? 0 : 1000 + (this.count % 9000);
    this.insert.run(
      id,
      this.org.id,
      parent.id,
      kind,
      name,
      name.toLowerCase(),
      address,
      siteId,
      path,
      parent.depth + 1,
      size,
      now,
      now,
    );
    this.count += 1;
    return { id, path, depth: parent.depth + 1, siteId };
  }

  /** A data item with a realistic, unique name: "Point cloud East wing L07 0012345". */
  item(parent: Placed, level: number): Placed {
    this.serial += 1;
    const kind = DATA_KINDS[this.serial % DATA_KINDS.length] as string;
    const name = `${ITEM_LABELS[kind]} ${AREAS[this.serial % AREAS.length]} L${String(level).padStart(2, '0')} ${String(this.serial).padStart(7, '0')}`;
    return this.add(parent, kind, name);
  }

  /** A site of exactly `nodes` nodes (itself included): folders of up to 49 data items each. */
  site(parent: Placed, name: string, nodes: number): Placed {
    const site = this.add(parent, 'site', name, `${1 + (this.count % 200)} ${STREETS[this.count % STREETS.length]}`);
    let left = nodes - 1;
    for (let level = 1; left > 0; level += 1) {
      const folder = this.add(site, 'folder', `Level ${String(level).padStart(2, '0')}`);
      left -= 1;
      for (let i = 0; i < 49 && left > 0; i += 1, left -= 1) this.item(folder, level);
    }
    return site;
  }

  commit(): void {
    this.db.exec('COMMIT');
    this.db.pragma('journal_mode = WAL');
    this.db.close();
  }
}
