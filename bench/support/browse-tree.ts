import { newNodeRow } from '../../src/adapters/db/repositories/node-rows.js';
import type { NodeRow } from '../../src/adapters/db/schema.js';
import { DATA_KINDS } from '../../src/domain/nodes/hierarchy.js';
import type { Platform } from '../../src/platform.js';

const BATCH = 500;

/**
 * The browse benchmark's tree, through the store's own connection so that it is the same on
 * SQLite and PostgreSQL: a division of 10 sites of 500 nodes (folders of 49 data items), and a
 * site with the browsed folder of 20 data items. Returns the folder's id.
 */
export async function insertBrowseTree(platform: Platform, orgId: string): Promise<string> {
  const region = platform.region('eu');
  const root = (await region.nodes.findById(orgId)) as NodeRow;
  const now = new Date().toISOString();
  const rows: NodeRow[] = [];
  let serial = 0;
  const add = (parent: NodeRow, kind: string, name: string, address?: string) => {
    const row = newNodeRow(parent, { kind, name, now, address });
    rows.push(row);
    return row;
  };
  const item = (parent: NodeRow) => {
    serial += 1;
    return add(parent, DATA_KINDS[serial % DATA_KINDS.length] as string, `Capture ${String(serial).padStart(7, '0')}`);
  };
  const division = add(root, 'division', 'Infrastructure');
  for (let s = 0; s < 10; s += 1) {
    const site = add(division, 'site', `Depot ${s + 1}`, `${s + 1} Harbour Road`);
    let left = 499;
    for (let level = 1; left > 0; level += 1) {
      const folder = add(site, 'folder', `Level ${String(level).padStart(2, '0')}`);
      left -= 1;
      for (let i = 0; i < 49 && left > 0; i += 1, left -= 1) item(folder);
    }
  }
  const site = add(division, 'site', 'Central Station', '1 Station Avenue');
  const folder = add(site, 'folder', 'Survey 2024');
  for (let i = 0; i < 20; i += 1) item(folder);
  await region.store.db.transaction().execute(async (tx) => {
    for (let i = 0; i < rows.length; i += BATCH)
      await tx
        .insertInto('nodes')
        .values(rows.slice(i, i + BATCH))
        .execute();
  });
  return folder.id;
}
