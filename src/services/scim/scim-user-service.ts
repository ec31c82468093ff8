import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import { ScimGroupRepository } from '../../adapters/db/repositories/scim-group-repository.js';
import { type ScimMemberRow, ScimUserRepository } from '../../adapters/db/repositories/scim-user-repository.js';
import type { GlobalSchema } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import { parseUserFilter } from '../../domain/scim/filters.js';
import type { Paging } from '../../domain/scim/listing.js';
import type { PatchOperation } from '../../domain/scim/patch.js';
import { badRequest, conflict, notFound, ScimError } from '../../domain/scim/scim-error.js';
import { applyUserPatch, type ScimUserFields, type ScimUserRecord } from '../../domain/scim/user-resource.js';
import type { Platform } from '../../platform.js';
import { type ScimContext, scimActor } from './scim-context.js';

const NO_SEAT = () => new ScimError(403, 'The organization has no free seat for another active user');

function fieldsOf(row: ScimMemberRow): ScimUserFields {
  return {
    userName: row.email,
    givenName: row.first_name,
    familyName: row.last_name,
    externalId: row.scim_external_id,
    active: row.member_deactivated_at === null,
  };
}

/**
 * Users over SCIM: the people of an organization. Users are global (one person may work for
 * several organizations); what the identity provider owns is the person's place in its
 * organization: active or not, its external id, and membership in its SCIM groups.
 */
export class ScimUserService {
  private readonly users: ScimUserRepository;

  constructor(private readonly platform: Platform) {
    this.users = new ScimUserRepository(platform.stores.global.db);
  }

  private now(): string {
    return this.platform.clock.now().toISOString();
  }

  private async records(context: ScimContext, rows: ScimMemberRow[]): Promise<ScimUserRecord[]> {
    const groups = await new ScimGroupRepository(context.region.store.db).groupsOf(
      context.orgId,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({
      ...fieldsOf(row),
      id: row.id,
      created: row.joined_at,
      lastModified: [row.user_updated_at, row.member_updated_at ?? row.joined_at].sort().at(-1) as string,
      groups: groups.get(row.id) ?? [],
    }));
  }

  async list(context: ScimContext, filter: string | undefined, paging: Paging) {
    const query = parseUserFilter(filter);
    if (query.none) return { total: 0, records: [] };
    const total = await this.users.count(context.orgId, query.where);
    const rows = paging.count === 0 ? [] : await this.users.list(context.orgId, query.where, paging.count, paging.startIndex - 1);
    return { total, records: await this.records(context, rows) };
  }

  async get(context: ScimContext, userId: string): Promise<ScimUserRecord> {
    const row = await this.users.find(context.orgId, userId);
    if (!row) throw notFound('No user with this id in the organization');
    return (await this.records(context, [row]))[0] as ScimUserRecord;
  }

  /** The organization's allowed e-mail domains, when it has any, bound what its provider may create. */
  private async requireAllowedDomain(orgId: string, email: string): Promise<void> {
    const org = await this.platform.directory.findOrganization(orgId);
    const domains = JSON.parse(org?.email_domains ?? '[]') as string[];
    const domain = email.slice(email.lastIndexOf('@') + 1);
    if (domains.length > 0 && !domains.includes(domain)) {
      throw badRequest('invalidValue', `The domain ${domain} is not allowed for this organization`);
    }
  }

  /**
   * Creates the person, or links the existing user with that e-mail, as a SCIM-managed member of
   * the organization. An active member takes a seat: counted under the seat lock.
   */
  async create(context: ScimContext, fields: ScimUserFields): Promise<ScimUserRecord> {
    await this.requireAllowedDomain(context.orgId, fields.userName);
    const now = this.now();
    let userId: string;
    let linked: boolean;
    try {
      ({ userId, linked } = await this.platform.members.withSeats(context.orgId, async (tx, seats) => {
        const existing = await this.users.findUserByEmail(tx, fields.userName);
        if (existing?.kind === 'service') throw conflict(`userName ${fields.userName} is taken`);
        if (existing && (await this.platform.members.find(context.orgId, existing.id, tx))) {
          throw conflict(`A user with userName ${fields.userName} is already in the organization`);
        }
        if (fields.active && seats.limit !== null && seats.used >= seats.limit) throw NO_SEAT();
        const id = existing?.id ?? randomUUID();
        if (!existing) {
          await this.users.insertUser(tx, {
            id,
            email: fields.userName,
            password_hash: null,
            first_name: fields.givenName,
            last_name: fields.familyName,
            kind: 'user',
            deactivated_at: null,
            tokens_not_before: null,
            created_at: now,
            updated_at: now,
          });
        } else if ((await this.users.organizationCount(tx, id)) === 0) {
          // A person of no other organization is the provider's to name.
          await this.users.updateUser(tx, id, { first_name: fields.givenName, last_name: fields.familyName, updated_at: now });
        }
        await this.platform.members.link(tx, {
          user_id: id,
          org_id: context.orgId,
          is_admin: 0,
          deactivated_at: fields.active ? null : now,
          scim_managed: 1,
          scim_external_id: fields.externalId,
          created_at: now,
          updated_at: now,
        });
        return { userId: id, linked: existing !== undefined };
      }));
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`A user with userName ${fields.userName} is already in the organization`);
      throw error;
    }
    await context.region.audit.record(context.region.store.db, {
      orgId: context.orgId,
      actor: scimActor(context),
      action: 'user.created',
      target: { type: 'user', id: userId },
      details: { userName: fields.userName, linked, active: fields.active, externalId: fields.externalId },
      at: now,
    });
    return this.get(context, userId);
  }

  /** PUT: the attributes the body gives replace the user's; the others stay. */
  async replace(context: ScimContext, userId: string, given: Partial<ScimUserFields>): Promise<ScimUserRecord> {
    return this.change(context, userId, (current) => ({ ...current, ...given }));
  }

  async patch(context: ScimContext, userId: string, operations: PatchOperation[]): Promise<ScimUserRecord> {
    return this.change(context, userId, (current) => applyUserPatch(current, operations));
  }

  private async change(
    context: ScimContext,
    userId: string,
    next: (current: ScimUserFields) => ScimUserFields,
  ): Promise<ScimUserRecord> {
    const row = await this.users.find(context.orgId, userId);
    if (!row) throw notFound('No user with this id in the organization');
    const before = fieldsOf(row);
    const after = next(before);
    const unchanged = (Object.keys(after) as (keyof ScimUserFields)[]).every((key) => after[key] === before[key]);
    // A provider's periodic sync repeats what is stored: nothing to write for a SCIM-managed person.
    if (unchanged && row.scim_managed === 1) return this.get(context, userId);
    const emailChanged = after.userName !== before.userName;
    if (emailChanged) await this.requireAllowedDomain(context.orgId, after.userName);
    const reactivated = after.active && !before.active;
    const now = this.now();

    const write = async (tx: Transaction<GlobalSchema>) => {
      if (emailChanged) {
        // The e-mail is the person's account everywhere: only its one organization may change it.
        if ((await this.users.organizationCount(tx, userId)) > 1) {
          throw badRequest('mutability', 'userName of a person who also belongs to another organization cannot change here');
        }
        if (await this.users.findUserByEmail(tx, after.userName)) throw conflict(`userName ${after.userName} is taken`);
      }
      if (emailChanged || after.givenName !== before.givenName || after.familyName !== before.familyName) {
        await this.users.updateUser(tx, userId, {
          email: after.userName,
          first_name: after.givenName,
          last_name: after.familyName,
          updated_at: now,
        });
      }
      await this.platform.members.update(
        context.orgId,
        userId,
        {
          deactivated_at: after.active ? null : (row.member_deactivated_at ?? now),
          scim_managed: 1,
          scim_external_id: after.externalId,
          updated_at: now,
        },
        tx,
      );
    };
    try {
      if (reactivated) {
        // Reactivation takes a seat again: counted under the seat lock.
        await this.platform.members.withSeats(context.orgId, async (tx, seats) => {
          if (seats.limit !== null && seats.used >= seats.limit) throw NO_SEAT();
          await write(tx);
        });
      } else {
        await this.platform.stores.global.db.transaction().execute(write);
      }
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`userName ${after.userName} is taken`);
      throw error;
    }
    // This process's caches forget the user at once (a deactivation bites on the next request, a
    // reactivation is honoured on it); other copies follow within a second.
    this.platform.principalChanges.changed(userId);
    await this.recordChange(context, userId, before, after, now);
    return this.get(context, userId);
  }

  private async recordChange(context: ScimContext, userId: string, before: ScimUserFields, after: ScimUserFields, at: string) {
    const changed = (Object.keys(after) as (keyof ScimUserFields)[]).filter(
      (key) => key !== 'active' && after[key] !== before[key],
    );
    const events: { action: string; details?: Record<string, unknown> }[] = [];
    if (changed.length > 0) {
      events.push({ action: 'user.updated', details: Object.fromEntries(changed.map((key) => [key, after[key]])) });
    }
    if (before.active !== after.active) events.push({ action: after.active ? 'user.reactivated' : 'user.deactivated' });
    if (events.length === 0) return;
    await context.region.store.db.transaction().execute(async (tx) => {
      for (const event of events) {
        await context.region.audit.record(tx, {
          orgId: context.orgId,
          actor: scimActor(context),
          action: event.action,
          target: { type: 'user', id: userId },
          ...(event.details ? { details: event.details } : {}),
          at,
        });
      }
    });
  }

  /**
   * Removes the person from the organization: its groups and node memberships there (regional),
   * then its place (global). Regional first: a failure between the two leaves a person still in
   * the organization, whom the retried DELETE removes, never memberships a later re-link would revive.
   */
  async delete(context: ScimContext, userId: string): Promise<void> {
    const row = await this.users.find(context.orgId, userId);
    if (!row) throw notFound('No user with this id in the organization');
    const groups = new ScimGroupRepository(context.region.store.db);
    await context.region.store.db.transaction().execute(async (tx) => {
      await groups.removePerson(tx, context.orgId, userId);
      await context.region.audit.record(tx, {
        orgId: context.orgId,
        actor: scimActor(context),
        action: 'user.removed',
        target: { type: 'user', id: userId },
        details: { userName: row.email },
        at: this.now(),
      });
    });
    await this.platform.members.unlink(context.orgId, userId);
    this.platform.principalChanges.changed(userId);
  }
}
