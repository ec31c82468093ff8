import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { createListVersions } from './regional-0033-list-versions.js';

/**
 * The order of an organization's list of people (/v1/users, by e-mail address) kept beside its
 * places, and the versions of that list and of SCIM /Users (docs/performance.md, "Lists at depth").
 *
 * user_organizations.email is a copy of the user's address (users.email), so that the list is a
 * range of one index, `(org_id, email, user_id)`: a page by offset skips index entries only, and
 * walks the organization's people, not every user of the deployment. Triggers keep the copy, so
 * a change by any code (an older copy of the platform during an upgrade included) or by plain SQL
 * keeps it too: a place takes its user's address when made, and a new address reaches every place
 * of its user in the same transaction. Expand only: nothing reads the column but the list.
 *
 * The versions (`users:<org>`), as regional-0033 keeps them for the regional lists: raised by a
 * place in the organization taken or left, or changed in what the lists order or filter by, and by
 * a change of a user's e-mail address, kind or deactivation in every organization it has a place in.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await sql`ALTER TABLE user_organizations ADD COLUMN email text`.execute(db);
  await sql`UPDATE user_organizations SET email = (SELECT u.email FROM users u WHERE u.id = user_organizations.user_id)`.execute(
    db,
  );
  await db.schema
    .createIndex('user_organizations_org_email')
    .on('user_organizations')
    .columns(['org_id', 'email', 'user_id'])
    .execute();
  if (dialect === 'postgres') {
    await sql`CREATE FUNCTION rdp_place_email() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        NEW.email := (SELECT u.email FROM users u WHERE u.id = NEW.user_id);
        RETURN NEW;
      END $$`.execute(db);
    await sql`CREATE TRIGGER user_organizations_email BEFORE INSERT OR UPDATE ON user_organizations
      FOR EACH ROW EXECUTE FUNCTION rdp_place_email()`.execute(db);
    await sql`CREATE FUNCTION rdp_user_email() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
      BEGIN
        UPDATE user_organizations uo SET email = n.email FROM new_rows n
          WHERE uo.user_id = n.id AND uo.email IS DISTINCT FROM n.email;
        RETURN NULL;
      END $$`.execute(db);
    for (const event of ['INSERT', 'UPDATE']) {
      await sql`CREATE TRIGGER ${sql.raw(`users_email_${event.toLowerCase()}`)} AFTER ${sql.raw(event)} ON users
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rdp_user_email()`.execute(db);
    }
  } else {
    await sql`CREATE TRIGGER user_organizations_email AFTER INSERT ON user_organizations FOR EACH ROW
      BEGIN
        UPDATE user_organizations SET email = (SELECT u.email FROM users u WHERE u.id = NEW.user_id)
          WHERE user_id = NEW.user_id AND org_id = NEW.org_id;
      END`.execute(db);
    await sql`CREATE TRIGGER user_organizations_email_update AFTER UPDATE OF user_id, email ON user_organizations FOR EACH ROW
      WHEN NEW.email IS NOT (SELECT u.email FROM users u WHERE u.id = NEW.user_id)
      BEGIN
        UPDATE user_organizations SET email = (SELECT u.email FROM users u WHERE u.id = NEW.user_id)
          WHERE user_id = NEW.user_id AND org_id = NEW.org_id;
      END`.execute(db);
    for (const [name, event, when] of [
      ['users_email_insert', 'INSERT', ''],
      ['users_email_update', 'UPDATE OF email', 'WHEN NEW.email IS NOT OLD.email'],
    ] as const) {
      await sql`CREATE TRIGGER ${sql.raw(name)} AFTER ${sql.raw(event)} ON users
        FOR EACH ROW ${sql.raw(when)}
        BEGIN
          UPDATE user_organizations SET email = NEW.email WHERE user_id = NEW.id;
        END`.execute(db);
    }
  }

  await createListVersions(db, dialect, [
    {
      table: 'user_organizations',
      columns: ['org_id'],
      key: `'users:' || r.org_id`,
      // Not is_admin, tokens_not_before, updated_at: no list orders or filters by them.
      orderedBy: ['user_id', 'org_id', 'email', 'created_at', 'deactivated_at', 'scim_external_id'],
    },
    {
      table: 'users',
      columns: ['id'],
      key: `'users:' || uo.org_id`,
      join: 'JOIN user_organizations uo ON uo.user_id = r.id',
      orderedBy: ['id', 'email', 'kind', 'deactivated_at'],
    },
  ]);
}
