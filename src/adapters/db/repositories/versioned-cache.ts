/**
 * Results of a read kept while the store has not changed: each entry carries the store's change
 * version at the time it was read, and is used only while that version is still current. So an
 * entry is never stale, whichever process wrote since. Entries are frozen: callers share them.
 */
export class VersionedCache<Value extends object> {
  private readonly entries = new Map<string, { version: number; value: Value }>();

  constructor(private readonly maxEntries = 10_000) {}

  get(key: string, version: number): Value | undefined {
    const entry = this.entries.get(key);
    return entry && entry.version === version ? entry.value : undefined;
  }

  /**
   * The entry with the version it was read at, whatever the current version: for a store that
   * checks the version in the same statement as the read it would otherwise make (PostgreSQL).
   */
  peek(key: string): { version: number; value: Value } | undefined {
    return this.entries.get(key);
  }

  /** Keeps a value read at `version` (taken before the read, so a commit during it only ever misses). */
  set(key: string, version: number, value: Value): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { version, value: Object.freeze(value) });
  }
}
