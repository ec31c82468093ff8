import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * PostgreSQL: a change counter per organization for the exact access cache (docs/performance.md,
 * "The access cache on PostgreSQL"). Every commit that changes what an access result holds (a
 * node row, a membership, a role, a group member, a group) raises its organization's version, in
 * the same transaction, so a read sees the new version exactly when it sees the change. Triggers
 * do it, so that writes of other processes and of plain SQL count as well as the repositories'.
 *
 * The statement triggers only note the organizations a transaction touched
 * (access_version_bumps, once per transaction and organization); a deferred trigger raises their
 * versions at commit. So a transaction holds the counter's row lock only while it commits, and
 * takes it after every other lock it holds: concurrent writers of one organization never wait
 * for each other's whole transaction, and cannot deadlock on the counter.
 *
 * SQLite needs none of this: its data_version changes with any commit to the file.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`CREATE TABLE access_versions (org_id text PRIMARY KEY, version bigint NOT NULL)`.execute(db);
  await sql`CREATE TABLE access_version_bumps (xact bigint NOT NULL, org_id text NOT NULL, PRIMARY KEY (xact, org_id))`.execute(
    db,
  );

  // SET search_path FROM CURRENT: the store's schema, also for a session whose search_path is
  // another (an operator's psql naming the tables by schema).
  await sql`CREATE FUNCTION rdp_bump_access_version() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
    BEGIN
      INSERT INTO access_versions (org_id, version) VALUES (NEW.org_id, 1)
        ON CONFLICT (org_id) DO UPDATE SET version = access_versions.version + 1;
      DELETE FROM access_version_bumps WHERE xact = NEW.xact AND org_id = NEW.org_id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER access_version_bump AFTER INSERT ON access_version_bumps
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION rdp_bump_access_version()`.execute(db);

  // The organizations of the changed rows (transition table `changed`), per table.
  const orgsOf: Record<string, string> = {
    nodes: 'SELECT DISTINCT c.org_id FROM changed c',
    roles: 'SELECT DISTINCT c.org_id FROM changed c',
    groups: 'SELECT DISTINCT c.org_id FROM changed c',
    // A membership or a group member whose node or group went in the same transaction: that
    // node's or group's own trigger names the organization.
    memberships: 'SELECT DISTINCT n.org_id FROM changed c JOIN nodes n ON n.id = c.node_id',
    group_members: 'SELECT DISTINCT g.org_id FROM changed c JOIN groups g ON g.id = c.group_id',
  };
  for (const [table, orgs] of Object.entries(orgsOf)) {
    await sql`CREATE FUNCTION ${sql.raw(`rdp_${table}_access_changed`)}() RETURNS trigger LANGUAGE plpgsql
      SET search_path FROM CURRENT AS $$
      BEGIN
        INSERT INTO access_version_bumps (xact, org_id) SELECT txid_current(), o.org_id FROM (${sql.raw(orgs)}) o
          ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`.execute(db);
    // A trigger with a transition table takes one event: three of them.
    for (const [event, transition] of [
      ['INSERT', 'NEW'],
      ['UPDATE', 'NEW'],
      ['DELETE', 'OLD'],
    ] as const) {
      await sql`CREATE TRIGGER ${sql.raw(`${table}_access_${event.toLowerCase()}`)} AFTER ${sql.raw(event)} ON ${sql.table(table)}
        REFERENCING ${sql.raw(transition)} TABLE AS changed
        FOR EACH STATEMENT EXECUTE FUNCTION ${sql.raw(`rdp_${table}_access_changed`)}()`.execute(db);
    }
  }
}
