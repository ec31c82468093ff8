import { performance } from 'node:perf_hooks';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { OAuthApplicationRow, UserRow } from '../adapters/db/schema.js';

/** As long as the access-token verifier keeps a user's revocation status (access-tokens.ts). */
const MAX_AGE_MS = 1000;
const MAX_ENTRIES = 10_000;

/** The reads of the directory that the token endpoint makes. */
export type ClientDirectory = Pick<DirectoryRepository, 'findApplication' | 'findUser'>;

/** Promises of rows, each kept for a second; concurrent misses share one read. */
class RecentRows<Row> {
  private readonly entries = new Map<string, { readAt: number; row: Promise<Row | undefined> }>();

  constructor(private readonly read: (key: string) => Promise<Row | undefined>) {}

  get(key: string): Promise<Row | undefined> {
    // Real time, monotonic: an injected clock (tests freeze it) must not keep a row forever.
    const now = performance.now();
    const entry = this.entries.get(key);
    if (entry && now - entry.readAt < MAX_AGE_MS) return entry.row;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    const row = this.read(key);
    this.entries.set(key, { readAt: now, row });
    // A failed read is not kept.
    row.catch(() => this.entries.delete(key));
    return row;
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
}

/**
 * Applications and users as the token endpoint reads them: each row at most a second old. Every
 * client-credentials request needs both, and they change rarely; a deleted application, a new
 * secret or a deactivated service user takes effect within a second, as revocation does for
 * tokens already issued. Changes made in this process are seen at once (forgetApplication); other
 * processes see them within the second. Rows are shared: callers must not change them.
 */
export class RecentDirectory implements ClientDirectory {
  private readonly applications: RecentRows<OAuthApplicationRow>;
  private readonly users: RecentRows<UserRow>;

  constructor(directory: DirectoryRepository) {
    this.applications = new RecentRows((clientId) => directory.findApplication(clientId));
    this.users = new RecentRows((id) => directory.findUser(id));
  }

  findApplication(clientId: string): Promise<OAuthApplicationRow | undefined> {
    return this.applications.get(clientId);
  }

  findUser(id: string): Promise<UserRow | undefined> {
    return this.users.get(id);
  }

  forgetUser(id: string): void {
    this.users.forget(id);
  }

  /** Drops what this process keeps of an application (and its service user) it has just changed. */
  forgetApplication(clientId: string, serviceUserId?: string | null): void {
    this.applications.forget(clientId);
    if (serviceUserId) this.users.forget(serviceUserId);
  }
}
