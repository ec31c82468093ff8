import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The rows of a table whose change changes a list: which list (its key, an SQL expression over
 * the row `r` and what `join` adds) and, when only some columns matter, those columns (an update
 * that leaves them as they were changes no list).
 */
export interface ListSource {
  table: string;
  /** The columns of `r` that `key` and `join` read. */
  columns: readonly string[];
  key: string;
  join?: string;
  /** Only updates of these columns count (default: any update). */
  orderedBy?: readonly string[];
}

/**
 * A version per list (list_versions): raised in every transaction that changes a row the list
 * orders or filters by, in the same transaction, so a statement that reads the version beside a
 * page sees a new version exactly when it sees the change. The deep offset pages of the lists of
 * people start from anchors read at one version and are kept only while it is current
 * (docs/performance.md, "Lists at depth"). Triggers do it, so writes of other processes and of
 * plain SQL count too.
 *
 * PostgreSQL: as access_versions (regional-0010), statement triggers note the lists a transaction
 * changed (list_version_bumps) and a deferred trigger raises their versions at commit, so the
 * counter's row lock is held only while committing. SQLite has one writer: a row trigger raises
 * the version at once. (SQLite's data_version would serve too, but changes with every write to
 * the file, processing progress and uploads included: anchors would rarely live.)
 */
export async function createListVersions(db: Kysely<any>, dialect: Dialect, sources: readonly ListSource[]): Promise<void> {
  await sql`CREATE TABLE list_versions (list_key text PRIMARY KEY, version bigint NOT NULL)`.execute(db);
  if (dialect === 'postgres') await postgresTriggers(db, sources);
  else await sqliteTriggers(db, sources);
}

function keysFrom(source: ListSource, rows: string): string {
  return `SELECT ${source.key} AS list_key FROM ${rows} r ${source.join ?? ''}`;
}

async function sqliteTriggers(db: Kysely<any>, sources: readonly ListSource[]): Promise<void> {
  const row = (source: ListSource, alias: 'NEW' | 'OLD') =>
    `(SELECT ${source.columns.map((column) => `${alias}.${column} AS ${column}`).join(', ')})`;
  for (const source of sources) {
    const events = {
      insert: { rows: [row(source, 'NEW')], when: '' },
      delete: { rows: [row(source, 'OLD')], when: '' },
      update: {
        rows: [row(source, 'OLD'), row(source, 'NEW')],
        when: source.orderedBy
          ? ` OF ${source.orderedBy.join(', ')} ON ${source.table} FOR EACH ROW WHEN ${source.orderedBy
              .map((column) => `OLD.${column} IS NOT NEW.${column}`)
              .join(' OR ')}`
          : '',
      },
    };
    for (const [event, { rows, when }] of Object.entries(events)) {
      const keys = rows.map((rowSql) => keysFrom(source, rowSql)).join(' UNION ');
      // "WHERE true": SQLite's upsert after a SELECT needs a WHERE to parse.
      await sql
        .raw(
          `CREATE TRIGGER ${source.table}_list_${event} AFTER ${event.toUpperCase()}${when || ` ON ${source.table} FOR EACH ROW`}
          BEGIN
            INSERT INTO list_versions (list_key, version) SELECT k.list_key, 1 FROM (${keys}) k WHERE true
              ON CONFLICT (list_key) DO UPDATE SET version = version + 1;
          END`,
        )
        .execute(db);
    }
  }
}

async function postgresTriggers(db: Kysely<any>, sources: readonly ListSource[]): Promise<void> {
  await sql`CREATE TABLE list_version_bumps (xact bigint NOT NULL, list_key text NOT NULL, PRIMARY KEY (xact, list_key))`.execute(
    db,
  );
  // SET search_path FROM CURRENT: the store's schema, also for a session whose search_path is another.
  await sql`CREATE FUNCTION rdp_bump_list_version() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO list_versions (list_key, version) VALUES (NEW.list_key, 1)
        ON CONFLICT (list_key) DO UPDATE SET version = list_versions.version + 1;
      DELETE FROM list_version_bumps WHERE xact = NEW.xact AND list_key = NEW.list_key;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER list_version_bump AFTER INSERT ON list_version_bumps
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION rdp_bump_list_version()`.execute(db);

  for (const source of sources) {
    const columns = source.columns.join(', ');
    // An update counts the rows before and after it; with `orderedBy`, only rows where one of those changed.
    const updated = source.orderedBy
      ? (() => {
          const compared = [...new Set([...source.columns, ...source.orderedBy])].join(', ');
          return `(SELECT ${columns} FROM ((SELECT ${compared} FROM new_rows EXCEPT SELECT ${compared} FROM old_rows)
            UNION (SELECT ${compared} FROM old_rows EXCEPT SELECT ${compared} FROM new_rows)) d)`;
        })()
      : `(SELECT ${columns} FROM new_rows UNION SELECT ${columns} FROM old_rows)`;
    // A trigger with transition tables takes one event: three of them.
    const events = [
      ['insert', 'NEW TABLE AS new_rows', '(SELECT * FROM new_rows)'],
      ['update', 'OLD TABLE AS old_rows NEW TABLE AS new_rows', updated],
      ['delete', 'OLD TABLE AS old_rows', '(SELECT * FROM old_rows)'],
    ] as const;
    for (const [event, transition, rows] of events) {
      const name = `rdp_${source.table}_list_${event}`;
      await sql
        .raw(
          `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
          BEGIN
            INSERT INTO list_version_bumps (xact, list_key) SELECT DISTINCT txid_current(), k.list_key FROM (${keysFrom(source, rows)}) k
              ON CONFLICT DO NOTHING;
            RETURN NULL;
          END $$`,
        )
        .execute(db);
      await sql
        .raw(
          `CREATE TRIGGER ${source.table}_list_${event} AFTER ${event.toUpperCase()} ON ${source.table}
          REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
        )
        .execute(db);
    }
  }
}

/** The regional lists: groups (also SCIM /Groups), roles, a node's memberships, invitations. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await createListVersions(db, dialect, [
    { table: 'groups', columns: ['org_id'], key: `'groups:' || r.org_id` },
    { table: 'roles', columns: ['org_id'], key: `'roles:' || r.org_id` },
    { table: 'memberships', columns: ['node_id'], key: `'memberships:' || r.node_id` },
    { table: 'invitations', columns: ['org_id'], key: `'invitations:' || r.org_id` },
  ]);
}
