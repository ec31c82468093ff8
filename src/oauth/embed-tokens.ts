import type { EmbedSessionRow } from '../adapters/db/schema.js';
import { hashToken } from '../crypto/secrets.js';
import type { Principal } from '../domain/access/principal.js';
import { type EmbedReach, embedSessionClientId } from '../domain/embed/embed-sessions.js';
import { ApiError } from '../domain/errors.js';
import type { Region } from '../domain/regions.js';
import type { Clock } from '../ports/clock.js';

/** How long a session's row, or a site's layers, may be reused: a revocation bites within it. */
const RECHECK_MS = 1000;
const MAX_CACHED = 10_000;

const OUT_OF_REACH =
  'An embed token reaches only the GET routes under /v1/twin/{ctx} (and the layouts of a plan) of its target and the tiles of its layers';

/** What the route a request reached says about it: the reach its path gives and its path parameters. */
export interface EmbedRequest {
  reach: EmbedReach | undefined;
  params: unknown;
}

export interface EmbedTokenDependencies {
  region: Region;
  /** The session a token's hash names, revoked or expired ones too: EmbedSessionService.sessionOfToken. */
  sessionOfToken(tokenHash: string): Promise<EmbedSessionRow | undefined>;
  /** The derivative node ids a site's twin shows as layers (its layers' tilesets). */
  layerNodeIds(siteId: string): Promise<string[]>;
  /** A planning target's {ctx} values (a project and its layouts, or a layout) and the derivatives it shows. */
  planningReach(
    orgId: string,
    target: { type: 'project' | 'layout'; id: string },
  ): Promise<{ contextIds: string[]; layerNodeIds: string[] }>;
  /** Whether the creator's tokens issued at that instant are revoked now (a deactivation): AccessTokenVerifier.userRevoked. */
  creatorRevoked(userId: string, orgId: string, issuedAtMs: number): Promise<boolean>;
  clock: Clock;
}

interface Checked<T> {
  checkedAt: number;
  value: T;
}

/**
 * Verifies embed tokens (docs/embedding.md): a session found by the token's hash, not expired
 * (the platform clock, on every request) nor revoked (its row re-read at most once a second, or at
 * once after a revocation in this process), whose creator may still sign in; then the request
 * must be in the token's reach. The caller acts as the session's creator with read:hierarchy
 * only, so the services' access checks (read on the site) still apply on every read.
 */
export class EmbedTokenVerifier {
  private readonly sessions = new Map<string, Checked<EmbedSessionRow | undefined>>();
  private readonly layers = new Map<string, Checked<ReadonlySet<string>>>();
  private readonly planning = new Map<string, Checked<{ contextIds: string[]; layerNodeIds: ReadonlySet<string> }>>();

  constructor(private readonly deps: EmbedTokenDependencies) {}

  async authenticate(token: string, request: EmbedRequest): Promise<Principal> {
    const nowMs = this.deps.clock.now().getTime();
    const session = await this.session(hashToken(token), nowMs);
    if (!session) throw new ApiError('invalid_token', 'The embed token is unknown');
    if (session.revoked_at !== null) throw new ApiError('invalid_token', 'The embed session has been revoked');
    if (Date.parse(session.expires_at) <= nowMs) throw new ApiError('invalid_token', 'The embed session has expired');
    const issuedAtMs = Date.parse(session.created_at);
    if (await this.deps.creatorRevoked(session.created_by, session.org_id, issuedAtMs)) {
      throw new ApiError('invalid_token', "The embed session's creator is deactivated in the organization");
    }
    await this.checkReach(session, request, nowMs);
    return {
      userId: session.created_by,
      orgId: session.org_id,
      clientId: embedSessionClientId(session.id),
      scopes: new Set(['read:hierarchy']),
      issuedAt: Math.floor(issuedAtMs / 1000),
      issuedAtMs,
      expiresAt: Math.floor(Date.parse(session.expires_at) / 1000),
      identityProvider: session.identity_provider,
      grantId: undefined,
      orgRegion: this.deps.region,
    };
  }

  /** A revocation made in this process bites on the next request, not a second later. */
  forgetSession(sessionId: string): void {
    for (const [key, entry] of this.sessions) if (entry.value?.id === sessionId) this.sessions.delete(key);
  }

  private async checkReach(session: EmbedSessionRow, request: EmbedRequest, nowMs: number): Promise<void> {
    const params = (request.params ?? {}) as Record<string, string | undefined>;
    if (request.reach === 'target') {
      const ctx = params.contextId;
      if (ctx !== undefined && (await this.contextIds(session, nowMs)).includes(ctx)) return;
      throw new ApiError('EmbedTokenOutOfReach', `${OUT_OF_REACH}: this {ctx} is not the session's target`);
    }
    if (request.reach === 'layerTiles') {
      const nodeId = params.nodeId;
      if (nodeId !== undefined && (await this.layerNodes(session, nowMs)).has(nodeId)) return;
      throw new ApiError('EmbedTokenOutOfReach', `${OUT_OF_REACH}: this node is not a layer of the session's target`);
    }
    throw new ApiError('EmbedTokenOutOfReach', OUT_OF_REACH);
  }

  private async session(tokenHash: string, nowMs: number): Promise<EmbedSessionRow | undefined> {
    const cached = this.sessions.get(tokenHash);
    if (cached && nowMs - cached.checkedAt < RECHECK_MS && nowMs >= cached.checkedAt) return cached.value;
    const value = await this.deps.sessionOfToken(tokenHash);
    remember(this.sessions, tokenHash, { checkedAt: nowMs, value });
    return value;
  }

  /** The {ctx} values the session's target answers to: a twin by its id or its site's. */
  private async contextIds(session: EmbedSessionRow, nowMs: number): Promise<string[]> {
    if (session.target_type === 'twin') return [session.site_id, session.target_id];
    if (session.target_type === 'twinDraft') return [session.target_id];
    return (await this.planningReach(session, nowMs)).contextIds;
  }

  /** A planning target's reach; a layout added to the project reaches the token within a second. */
  private async planningReach(session: EmbedSessionRow, nowMs: number) {
    const cached = this.planning.get(session.id);
    if (cached && nowMs - cached.checkedAt < RECHECK_MS && nowMs >= cached.checkedAt) return cached.value;
    const target = { type: session.target_type as 'project' | 'layout', id: session.target_id };
    const reach = await this.deps.planningReach(session.org_id, target);
    const value = { contextIds: reach.contextIds, layerNodeIds: new Set(reach.layerNodeIds) };
    remember(this.planning, session.id, { checkedAt: nowMs, value });
    return value;
  }

  /** An unlinked layer stops serving its tiles to the token within a second too. */
  private async layerNodes(session: EmbedSessionRow, nowMs: number): Promise<ReadonlySet<string>> {
    if (session.target_type === 'project' || session.target_type === 'layout') {
      return (await this.planningReach(session, nowMs)).layerNodeIds;
    }
    const siteId = session.site_id;
    const cached = this.layers.get(siteId);
    if (cached && nowMs - cached.checkedAt < RECHECK_MS && nowMs >= cached.checkedAt) return cached.value;
    const value = new Set(await this.deps.layerNodeIds(siteId));
    remember(this.layers, siteId, { checkedAt: nowMs, value });
    return value;
  }
}

function remember<T>(map: Map<string, T>, key: string, value: T): void {
  map.delete(key);
  if (map.size >= MAX_CACHED) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
