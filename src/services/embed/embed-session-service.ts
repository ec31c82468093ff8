import { randomUUID } from 'node:crypto';
import type { EmbedSessionRepository } from '../../adapters/db/repositories/embed-session-repository.js';
import type { EmbedSessionRow, NodeRow } from '../../adapters/db/schema.js';
import { hashToken, randomToken } from '../../crypto/secrets.js';
import type { Principal } from '../../domain/access/principal.js';
import {
  allowedOriginsProblem,
  DEFAULT_EXPIRES_IN_SECONDS,
  EMBED_PAGE_PATH,
  EMBED_TOKEN_PREFIX,
  type EmbedTargetType,
  embedHtml,
  MAX_EXPIRES_IN_SECONDS,
  MIN_EXPIRES_IN_SECONDS,
} from '../../domain/embed/embed-sessions.js';
import { ApiError, validationError } from '../../domain/errors.js';
import type { Clock } from '../../ports/clock.js';
import type { PlanningService } from '../planning/planning-service.js';
import type { TwinService } from '../twins/twin-service.js';
import { SessionEndWatch } from './session-end-watch.js';

export interface CreateEmbedSession {
  twinId?: string;
  twinDraftId?: string;
  projectId?: string;
  layoutId?: string;
  allowedOrigins: string[];
  expiresInSeconds?: number;
}

/** A session as the API shows it; `token`, `iframeUrl` and `embedHtml` only when it is made. */
export interface EmbedSessionView {
  row: EmbedSessionRow;
  allowedOrigins: string[];
  token?: string;
  iframeUrl?: string;
  embedHtml?: string;
}

const TARGET_FIELDS = ['twinId', 'twinDraftId', 'projectId', 'layoutId'] as const;
const NOT_FOUND = 'Embed session not found';

export interface EmbedSessionServiceOptions {
  clock: Clock;
  /** The platform's public address: the viewer page's, and the only origin that frames a reader's own viewer. */
  publicUrl: string;
  /** How long a reader's own viewer session lasts: as long as an access token. */
  accessTokenTtlSeconds: number;
  sessions: EmbedSessionRepository;
  twins: Pick<TwinService, 'context' | 'draftContext' | 'site' | 'ensureTwin' | 'audit'>;
  planning: Pick<PlanningService, 'layoutContext' | 'project'>;
}

/**
 * Embed sessions (docs/design/embedding.md#embed-sessions, docs/embedding.md). Making, reading and
 * revoking one needs read on its target's site; the routes add the scope. The token is returned
 * once, at creation.
 */
export class EmbedSessionService {
  /** Told of each revocation, so this process's token verifier forgets the session at once. */
  private readonly revocationListeners: ((sessionId: string) => void)[] = [];
  /** The embedded viewers' held requests (GET /v1/twin/{ctx}/embed-session). */
  readonly endWatch = new SessionEndWatch(async (id) => (await this.openSession(id)) !== undefined);

  private readonly clock: Clock;
  private readonly publicUrl: string;
  private readonly accessTokenTtlSeconds: number;
  private readonly sessions: EmbedSessionRepository;
  private readonly twins: EmbedSessionServiceOptions['twins'];
  private readonly planning: EmbedSessionServiceOptions['planning'];

  constructor(options: EmbedSessionServiceOptions) {
    this.clock = options.clock;
    this.publicUrl = options.publicUrl;
    this.accessTokenTtlSeconds = options.accessTokenTtlSeconds;
    this.sessions = options.sessions;
    this.twins = options.twins;
    this.planning = options.planning;
  }

  /** The session a token's hash names, revoked or expired ones too (the embed token verifier tells them apart). */
  sessionOfToken(tokenHash: string): Promise<EmbedSessionRow | undefined> {
    return this.sessions.findByTokenHash(tokenHash);
  }

  onRevoked(listener: (sessionId: string) => void): void {
    this.revocationListeners.push(listener);
  }

  async create(principal: Principal, body: CreateEmbedSession): Promise<EmbedSessionView> {
    const given = TARGET_FIELDS.filter((field) => body[field] !== undefined);
    if (given.length !== 1) {
      throw validationError(`body: give exactly one of ${TARGET_FIELDS.join(', ')} (got ${given.length})`);
    }
    const originProblem = allowedOriginsProblem(body.allowedOrigins);
    if (originProblem) throw validationError(originProblem);
    const target = await this.target(principal, body);
    const expiresIn = body.expiresInSeconds ?? DEFAULT_EXPIRES_IN_SECONDS;
    return this.insert(principal, target, body.allowedOrigins, expiresIn, 'embed');
  }

  /**
   * The open sessions made for embedding on a twin's site (`twinId`: a twin's id or its site's),
   * its drafts' and plans' too, newest first; not the short ones of readers' own viewers.
   */
  async list(principal: Principal, twinId: string, limit: number, offset: number) {
    const site = await this.twinSiteOf(principal, twinId);
    const { rows, total } = await this.sessions.listOpen(site.id, this.now(), limit, offset);
    return { views: rows.map((row) => this.view(row)), total };
  }

  /**
   * The viewer's address for the caller (GET /v1/twin/{ctx}/iframe): a session of the caller's
   * own, framed by the platform's origin only, that lasts as long as an access token does.
   */
  async viewerAddress(principal: Principal, contextId: string): Promise<{ url: string; embedHtml: string }> {
    const { site, draft } = await this.twins.context(principal, contextId, 'read');
    const target = draft
      ? { type: 'twinDraft' as const, id: draft.id, siteId: site.id }
      : { type: 'twin' as const, id: (await this.twins.ensureTwin(site)).id, siteId: site.id };
    const ttl = Math.min(MAX_EXPIRES_IN_SECONDS, Math.max(MIN_EXPIRES_IN_SECONDS, this.accessTokenTtlSeconds));
    const origin = new URL(this.publicUrl).origin;
    const view = await this.insert(principal, target, [origin], ttl, 'viewer');
    return { url: view.iframeUrl as string, embedHtml: view.embedHtml as string };
  }

  async get(principal: Principal, id: string): Promise<EmbedSessionView> {
    return this.view(await this.readable(principal, id));
  }

  /**
   * Whether the session is still open (for its viewer to notice an end at once): not revoked nor
   * expired, read again (any process may have revoked it).
   */
  async openSession(id: string): Promise<EmbedSessionRow | undefined> {
    const row = await this.sessions.findById(id);
    const open = row !== undefined && row.revoked_at === null && Date.parse(row.expires_at) > this.clock.now().getTime();
    return open ? row : undefined;
  }

  private view(row: EmbedSessionRow): EmbedSessionView {
    return { row, allowedOrigins: JSON.parse(row.allowed_origins) as string[] };
  }

  async revoke(principal: Principal, id: string): Promise<void> {
    const row = await this.readable(principal, id);
    const now = this.now();
    await this.sessions.transaction(async (tx) => {
      if (!(await this.sessions.revoke(tx, row.id, now))) throw new ApiError('NotFound', NOT_FOUND);
      await this.twins.audit(tx, principal, 'embed-session.revoked', row.id, this.details(row), now);
    });
    for (const listener of this.revocationListeners) listener(row.id);
    this.endWatch.ended(row.id);
  }

  /** The address of a session's viewer page, without its token. */
  pageUrl(sessionId: string): string {
    return `${this.publicUrl}${EMBED_PAGE_PATH}/${sessionId}`;
  }

  /** A session of the caller's organization that is not revoked, on a site the caller may read; 404 otherwise. */
  private async readable(principal: Principal, id: string): Promise<EmbedSessionRow> {
    const row = await this.sessions.findById(id);
    if (!row || row.org_id !== principal.orgId || row.revoked_at !== null) throw new ApiError('NotFound', NOT_FOUND);
    await this.twins.site(principal, row.site_id, 'read');
    return row;
  }

  /** The twin or draft the body names, on a site the caller may read; 404 for what the caller's organization lacks. */
  private async target(principal: Principal, body: CreateEmbedSession) {
    if (body.layoutId !== undefined) {
      const context = await this.planning.layoutContext(principal, body.layoutId, 'read');
      if (!context) throw new ApiError('NotFound', 'No planning layout with this id');
      return { type: 'layout' as const, id: context.layout.id, siteId: context.project.site_id as string };
    }
    if (body.projectId !== undefined) {
      const project = await this.planning.project(principal, body.projectId, 'read');
      return { type: 'project' as const, id: project.id, siteId: project.site_id as string };
    }
    if (body.twinDraftId !== undefined) {
      const { site, draft } = await this.twins.draftContext(principal, body.twinDraftId, 'read');
      return { type: 'twinDraft' as const, id: draft.id, siteId: site.id };
    }
    const site = await this.twinSiteOf(principal, body.twinId as string);
    return { type: 'twin' as const, id: (await this.twins.ensureTwin(site)).id, siteId: site.id };
  }

  /** A twin's site by the twin's id or by its site's id (the {ctx} of the twin routes), readable by the caller. */
  private async twinSiteOf(principal: Principal, twinId: string): Promise<NodeRow> {
    const siteId = (await this.sessions.twinSite(principal.orgId, twinId)) ?? twinId;
    try {
      return await this.twins.site(principal, siteId, 'read');
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw new ApiError('NotFound', 'No twin with this id or site id');
      throw error;
    }
  }

  private async insert(
    principal: Principal,
    target: { type: EmbedTargetType; id: string; siteId: string },
    allowedOrigins: string[],
    expiresInSeconds: number,
    purpose: EmbedSessionRow['purpose'],
  ): Promise<EmbedSessionView> {
    const nowMs = this.clock.now().getTime();
    const token = `${EMBED_TOKEN_PREFIX}${randomToken()}`;
    const row: EmbedSessionRow = {
      id: randomUUID(),
      org_id: principal.orgId,
      site_id: target.siteId,
      target_type: target.type,
      target_id: target.id,
      allowed_origins: JSON.stringify(allowedOrigins),
      token_hash: hashToken(token),
      identity_provider: principal.identityProvider,
      created_by: principal.userId,
      created_at: new Date(nowMs).toISOString(),
      expires_at: new Date(nowMs + expiresInSeconds * 1000).toISOString(),
      revoked_at: null,
      purpose,
    };
    await this.sessions.transaction(async (tx) => {
      await this.sessions.insert(tx, row);
      // The viewer address of a signed-in reader is a read, not a change: it is not in the trail.
      if (purpose === 'embed')
        await this.twins.audit(tx, principal, 'embed-session.created', row.id, this.details(row), row.created_at);
    });
    const iframeUrl = `${this.pageUrl(row.id)}#token=${token}`;
    return { row, allowedOrigins, token, iframeUrl, embedHtml: embedHtml(iframeUrl, 'Reality Data Platform viewer').value };
  }

  private details(row: EmbedSessionRow) {
    return {
      siteId: row.site_id,
      target: { type: row.target_type, id: row.target_id },
      allowedOrigins: JSON.parse(row.allowed_origins) as string[],
      expiresAt: row.expires_at,
    };
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}
