import type { EmbedSessionRepository } from '../../adapters/db/repositories/embed-session-repository.js';
import type { EmbedSessionRow } from '../../adapters/db/schema.js';
import type { Region } from '../../domain/regions.js';
import type { Clock } from '../../ports/clock.js';

/** What the viewer page knows of a session: its row (if any) and its region. */
export interface SessionOfPage {
  row: EmbedSessionRow;
  region: Region;
  state: 'active' | 'expired' | 'revoked';
}

/** The sessions of one served region. */
export interface RegionSessions {
  region: Region;
  sessions: Pick<EmbedSessionRepository, 'findById'>;
}

/**
 * The sessions behind the viewer pages (/viewer/embed/{id}), which sit outside any region's
 * prefix: a session id is looked up in the store of each region this process serves (one read
 * per region at most; ids are random, so at most one holds it).
 */
export class ViewerSessions {
  constructor(private readonly options: { clock: Clock; regions: readonly RegionSessions[] }) {}

  async find(sessionId: string): Promise<SessionOfPage | undefined> {
    for (const { region, sessions } of this.options.regions) {
      const row = await sessions.findById(sessionId);
      if (!row) continue;
      const expired = Date.parse(row.expires_at) <= this.options.clock.now().getTime();
      return { row, region, state: row.revoked_at !== null ? 'revoked' : expired ? 'expired' : 'active' };
    }
    return undefined;
  }
}
