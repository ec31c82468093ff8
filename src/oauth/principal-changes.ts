/**
 * Tells the caches of this process that a principal changed (deactivated, removed from an
 * organization), so the change bites on its next request. Other processes re-read within a
 * second (the verifier's revocation window).
 */
export class PrincipalChanges {
  private readonly listeners = new Set<(userId: string) => void>();

  subscribe(listener: (userId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(userId: string): void {
    for (const listener of this.listeners) listener(userId);
  }
}
