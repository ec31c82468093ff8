import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { InTransaction } from '../../adapters/db/database.js';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type {
  OrganizationMember,
  OrganizationMemberRepository,
} from '../../adapters/db/repositories/organization-member-repository.js';
import type { ScimUserRepository } from '../../adapters/db/repositories/scim-user-repository.js';
import type { UserRepository } from '../../adapters/db/repositories/user-repository.js';
import type { GlobalSchema } from '../../adapters/db/schema.js';
import { isUniqueViolation } from '../../adapters/db/unique-violation.js';
import { encodeCursor } from '../../domain/listing/cursor.js';
import { emailDomain, isDomainAllowed } from '../../domain/people/invitation-rules.js';
import { checkSeatFree } from '../../domain/people/user-rules.js';
import { parseUserFilter } from '../../domain/scim/filters.js';
import { decodeScimCursor, type Paging } from '../../domain/scim/listing.js';
import type { PatchOperation } from '../../domain/scim/patch.js';
import { badRequest, conflict, notFound } from '../../domain/scim/scim-error.js';
import { applyUserPatch, type ScimUserFields, type ScimUserRecord } from '../../domain/scim/user-resource.js';
import type { Clock } from '../../ports/clock.js';
import { type ScimContext, scimActor } from './scim-context.js';

type Seats = { used: number; limit: number | null };

const SCIM_USERS = 'scim-users';

function fieldsOf(row: OrganizationMember): ScimUserFields {
  return {
    userName: row.email,
    givenName: row.first_name,
    familyName: row.last_name,
    externalId: row.scim_external_id,
    active: row.member_deactivated_at === null,
  };
}

export interface ScimUserServiceOptions {
  clock: Clock;
  /** People's places in organizations, under the organization's seat lock. */
  members: OrganizationMemberRepository;
  /** Whether an account has the e-mail. */
  directory: Pick<DirectoryRepository, 'findUserByEmail'>;
  users: UserRepository;
  scimUsers: ScimUserRepository;
  globalTransaction: InTransaction<GlobalSchema>;
  /** Tells this process's token caches that a user was deactivated, reactivated or removed. */
  principalChanged(userId: string): void;
}

/**
 * Users over SCIM: the people of an organization. Users are global (one person may work for
 * several organizations); what the identity provider owns is the person's place in its
 * organization: active or not, its external id, and membership in its SCIM groups.
 */
export class ScimUserService {
  private readonly clock: Clock;
  private readonly members: OrganizationMemberRepository;
  private readonly directory: Pick<DirectoryRepository, 'findUserByEmail'>;
  private readonly users: UserRepository;
  private readonly scimUsers: ScimUserRepository;
  private readonly globalTransaction: InTransaction<GlobalSchema>;
  private readonly principalChanged: (userId: string) => void;

  constructor(options: ScimUserServiceOptions) {
    this.clock = options.clock;
    this.members = options.members;
    this.directory = options.directory;
    this.users = options.users;
    this.scimUsers = options.scimUsers;
    this.globalTransaction = options.globalTransaction;
    this.principalChanged = options.principalChanged;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private async records(context: ScimContext, rows: OrganizationMember[]): Promise<ScimUserRecord[]> {
    const { scimGroups } = context.region;
    const groups = await scimGroups.groupsOf(
      context.orgId,
      rows.map((row) => row.id),
    );
    return rows.map((row) => ({
      ...fieldsOf(row),
      id: row.id,
      created: row.joined_at,
      lastModified: [row.updated_at, row.member_updated_at ?? row.joined_at].sort().at(-1) as string,
      groups: groups.get(row.id) ?? [],
    }));
  }

  /**
   * A page in the order people joined, by startIndex or by cursor (RFC 9865): a cursor holds the
   * last person's (joined, id), bound to the organization and the filter.
   */
  async list(context: ScimContext, filter: string | undefined, paging: Paging) {
    const scope = [context.orgId, filter ?? ''];
    const after = paging.cursor ? decodeScimCursor(paging.cursor, SCIM_USERS, scope) : undefined;
    const query = parseUserFilter(filter);
    if (query.none) return { total: 0, records: [] };
    // Service users never show: SCIM's users are people.
    const where = { ...query.where, kind: 'user' as const };
    const { members } = this;
    const total = await members.count(context.orgId, where);
    const page = { limit: paging.count, offset: paging.startIndex - 1, after };
    const rows = paging.count === 0 ? [] : await members.list(context.orgId, where, page, 'joined');
    const last = paging.cursor !== undefined && rows.length === paging.count ? rows[rows.length - 1] : undefined;
    const nextCursor = last ? encodeCursor(SCIM_USERS, scope, [last.joined_at, last.id]) : undefined;
    return { total, records: await this.records(context, rows), nextCursor };
  }

  async get(context: ScimContext, userId: string): Promise<ScimUserRecord> {
    return this.record(context, await this.person(context.orgId, userId));
  }

  private async record(context: ScimContext, row: OrganizationMember): Promise<ScimUserRecord> {
    return (await this.records(context, [row]))[0] as ScimUserRecord;
  }

  /** A person (not a service user) of the organization, or 404. */
  private async person(orgId: string, userId: string, db?: Transaction<GlobalSchema>): Promise<OrganizationMember> {
    const row = await this.members.find(orgId, userId, db);
    if (row?.kind !== 'user') throw notFound('No user with this id in the organization');
    return row;
  }

  /** The organization's allowed e-mail domains, when it has any, bound what its provider may create. */
  private requireAllowedDomain(context: ScimContext, email: string): void {
    if (!isDomainAllowed(email, context.allowedDomains)) {
      throw badRequest('invalidValue', `The domain ${emailDomain(email)} is not allowed for this organization`);
    }
  }

  /**
   * Creates the person, or links the existing user with that e-mail, as a SCIM-managed member of
   * the organization. An active member takes a seat: counted under the seat lock.
   */
  async create(context: ScimContext, fields: ScimUserFields): Promise<ScimUserRecord> {
    this.requireAllowedDomain(context, fields.userName);
    const now = this.now();
    let userId: string;
    let linked: boolean;
    try {
      ({ userId, linked } = await this.members.withSeats(context.orgId, async (tx, seats) => {
        const existing = await this.directory.findUserByEmail(fields.userName, tx);
        if (existing?.kind === 'service') throw conflict(`userName ${fields.userName} is taken`);
        if (existing && (await this.members.find(context.orgId, existing.id, tx))) {
          throw conflict(`A user with userName ${fields.userName} is already in the organization`);
        }
        if (fields.active) checkSeatFree(seats);
        const id = existing?.id ?? randomUUID();
        if (!existing) {
          await this.scimUsers.insertUser(tx, {
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
        } else if ((await this.scimUsers.organizationCount(tx, id)) === 0) {
          // A person of no other organization is the provider's to name.
          await this.users.update(tx, id, { first_name: fields.givenName, last_name: fields.familyName, updated_at: now });
        }
        await this.members.link(tx, {
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
    const { audit, transaction } = context.region;
    await transaction((tx) =>
      audit.record(tx, {
        orgId: context.orgId,
        actor: scimActor(context),
        action: 'user.created',
        target: { type: 'user', id: userId },
        details: { userName: fields.userName, linked, active: fields.active, externalId: fields.externalId },
        at: now,
      }),
    );
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
    const row = await this.person(context.orgId, userId);
    const before = fieldsOf(row);
    const after = next(before);
    const unchanged = (Object.keys(after) as (keyof ScimUserFields)[]).every((key) => after[key] === before[key]);
    // A provider's periodic sync repeats what is stored: nothing to write for a SCIM-managed person.
    if (unchanged && row.scim_managed === 1) return this.record(context, row);
    const emailChanged = after.userName !== before.userName;
    if (emailChanged) this.requireAllowedDomain(context, after.userName);
    const now = this.now();

    /** Writes the change and answers the row as stored; `seats` when it may take one. */
    const write = async (tx: Transaction<GlobalSchema>, seats?: Seats): Promise<OrganizationMember> => {
      // A DELETE since the read above ended the person's place: 404 before writing anything.
      const current = await this.person(context.orgId, userId, tx);
      if (seats && current.member_deactivated_at !== null) checkSeatFree(seats);
      if (emailChanged) {
        // The e-mail is the person's account everywhere: only its one organization may change it.
        if ((await this.scimUsers.organizationCount(tx, userId)) > 1) {
          throw badRequest('mutability', 'userName of a person who also belongs to another organization cannot change here');
        }
        if (await this.directory.findUserByEmail(after.userName, tx)) throw conflict(`userName ${after.userName} is taken`);
      }
      const names = { email: after.userName, first_name: after.givenName, last_name: after.familyName };
      const userChanged = emailChanged || after.givenName !== before.givenName || after.familyName !== before.familyName;
      if (userChanged) await this.users.update(tx, userId, { ...names, updated_at: now });
      const member = {
        deactivated_at: after.active ? null : (current.member_deactivated_at ?? now),
        scim_managed: 1,
        scim_external_id: after.externalId,
        updated_at: now,
      };
      await this.members.update(context.orgId, userId, member, tx);
      return {
        ...current,
        ...(userChanged ? { ...names, updated_at: now } : {}),
        member_deactivated_at: member.deactivated_at,
        scim_managed: 1,
        scim_external_id: after.externalId,
        member_updated_at: now,
      };
    };
    let stored: OrganizationMember;
    try {
      // Reactivation takes a seat again: counted under the seat lock.
      stored =
        after.active && !before.active
          ? await this.members.withSeats(context.orgId, (tx, seats) => write(tx, seats))
          : await this.globalTransaction((tx) => write(tx));
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`userName ${after.userName} is taken`);
      throw error;
    }
    // This process's caches forget the user at once (a deactivation bites on the next request, a
    // reactivation is honoured on it); other copies follow within a second.
    this.principalChanged(userId);
    await this.recordChange(context, userId, before, after, now);
    return this.record(context, stored);
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
    const { audit, transaction } = context.region;
    await transaction(async (tx) => {
      for (const event of events) {
        await audit.record(tx, {
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
    const row = await this.person(context.orgId, userId);
    const { scimGroups, audit, transaction } = context.region;
    await transaction(async (tx) => {
      await scimGroups.removePerson(tx, context.orgId, userId);
      await audit.record(tx, {
        orgId: context.orgId,
        actor: scimActor(context),
        action: 'user.removed',
        target: { type: 'user', id: userId },
        details: { userName: row.email },
        at: this.now(),
      });
    });
    await this.members.unlink(context.orgId, userId);
    this.principalChanged(userId);
  }
}
