import { isEmbedToken } from '../../src/domain/embed/embed-sessions.js';
import type { ModelAsset, PlanLayers, PlanLayouts, PointOfInterest, Twin, ViewerConfig, Zone } from './api-types.js';
import type { Measurement, MeasurementKind, Vector3 } from './protocol.js';

/** The API refused the token (401, or 403 on the target's own reads): the session has expired or was revoked. */
export class SessionRefusedError extends Error {
  constructor(readonly status: number) {
    super('this session has expired or was revoked');
  }
}

export function isRefusal(status: number): boolean {
  return status === 401 || status === 403;
}

/** The largest page the API answers (src/http/routes/paging.ts). */
const PAGE = 500;

/**
 * The viewer's reads, each with the bearer token. Once a read is refused every later call fails
 * at once without reaching the network: a refused session loads nothing more.
 */
export class TwinApi {
  refused = false;

  /**
   * The {ctx} of the object lists: the twin's (or draft's), or for a plan the layout shown (the
   * layout itself, or the project's default one), known once twin() has answered.
   */
  private objectsContext: string;

  constructor(
    private readonly config: ViewerConfig,
    readonly token: string,
  ) {
    this.objectsContext = config.ctx;
  }

  /** A planning project or layout: drawn on its bundle's point cloud, with model assets only. */
  get showsPlan(): boolean {
    return this.config.target.type === 'project' || this.config.target.type === 'layout';
  }

  get authorization(): Record<string, string> {
    return { Authorization: `Bearer ${this.token}` };
  }

  /**
   * Whether the viewer tries to save what it measures: an embed session's token (every viewer
   * page's, the console's included: docs/embedding.md) is read-only, and a plan has no
   * measurements; any other token is tried, and a refusal leaves the measurement reported only.
   */
  get mayWrite(): boolean {
    return !this.showsPlan && !isEmbedToken(this.token);
  }

  /** An embed session's token: its viewer notices the session's end through one held request (waitWhileOpen). */
  get isEmbedSession(): boolean {
    return isEmbedToken(this.token);
  }

  /**
   * One held request that answers when the session ends (docs/embedding.md, "When a session
   * ends"): SessionRefusedError then (401, as every read's refusal), true when it is still open
   * after `waitSeconds`, false when the API has no such route (nothing to watch with).
   */
  async waitWhileOpen(waitSeconds: number): Promise<boolean> {
    const path = `/twin/${encodeURIComponent(this.config.ctx)}/embed-session?waitSeconds=${waitSeconds}`;
    const response = await this.fetch(`${this.config.apiBase}${path}`);
    if (response.status === 404) return false;
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return true;
  }

  /** POST /v1/twin/{ctx}/measurements (docs/design/measurements.md): the platform computes value and unit. */
  async createMeasurement(body: { name: string; kind: MeasurementKind; points: Vector3[] }): Promise<Measurement> {
    const path = `/twin/${encodeURIComponent(this.objectsContext)}/measurements`;
    if (this.refused) throw new SessionRefusedError(401);
    const response = await fetch(`${this.config.apiBase}${path}`, {
      method: 'POST',
      headers: { ...this.authorization, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      referrerPolicy: 'no-referrer',
    });
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return (await response.json()) as Measurement;
  }

  /** The twin's saved measurements (a plan has none). */
  async measurements(): Promise<Measurement[]> {
    return this.showsPlan ? [] : this.all<Measurement>('measurements');
  }

  /** A fetch with the token that turns a refusal into SessionRefusedError (and remembers it). */
  async fetch(url: string, refusalEndsSession = true, signal?: AbortSignal): Promise<Response> {
    if (this.refused) throw new SessionRefusedError(401);
    const response = await fetch(url, { headers: this.authorization, referrerPolicy: 'no-referrer', signal });
    if (refusalEndsSession && isRefusal(response.status)) {
      this.refused = true;
      throw new SessionRefusedError(response.status);
    }
    return response;
  }

  async json<T>(path: string): Promise<T> {
    const response = await this.fetch(`${this.config.apiBase}${path}`);
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return (await response.json()) as T;
  }

  twin(): Promise<Twin> {
    if (this.showsPlan) return this.plan();
    return this.json<Twin>(`/twin/${encodeURIComponent(this.config.ctx)}`);
  }

  /** A plan in the twin's shape: its layout (the default one of a project) and its bundle's layers. */
  private async plan(): Promise<Twin> {
    const ctx = encodeURIComponent(this.config.ctx);
    const [layouts, plan] = await Promise.all([
      this.json<PlanLayouts>(`/planning/${ctx}/layouts?limit=100`),
      this.json<PlanLayers>(`/planning/${ctx}/layers`),
    ]);
    const layout = layouts.items.find((item) => item.isDefault) ?? layouts.items[0];
    if (!layout) throw new Error('the plan has no layout');
    this.objectsContext = layout.id;
    return { id: layout.id, siteId: plan.siteId, name: layout.name, layers: plan.layers };
  }

  /** Every item of a twin list (a flat array per page, docs/twins.md), page by page. */
  async all<T>(kind: 'points-of-interest' | 'zones' | 'model-assets' | 'measurements'): Promise<T[]> {
    const items: T[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.json<T[]>(
        `/twin/${encodeURIComponent(this.objectsContext)}/${kind}?limit=${PAGE}&offset=${offset}`,
      );
      items.push(...page);
      if (page.length < PAGE) return items;
    }
  }

  /** A plan has none: its layouts hold model assets only. */
  async pointsOfInterest(): Promise<PointOfInterest[]> {
    return this.showsPlan ? [] : this.all<PointOfInterest>('points-of-interest');
  }

  async zones(): Promise<Zone[]> {
    return this.showsPlan ? [] : this.all<Zone>('zones');
  }

  modelAssets(): Promise<ModelAsset[]> {
    return this.all<ModelAsset>('model-assets');
  }

  /**
   * A placed model's preview GLB, read through the twin (docs/design/meshes.md#model-previews):
   * whoever reads the twin reads it, an embed session's token too. Null when its library model has
   * no preview (404: not previewable, or not made yet); a refusal ends the session as for any twin read.
   */
  async preview(modelAssetId: string): Promise<ArrayBuffer | null> {
    const ctx = encodeURIComponent(this.objectsContext);
    const path = `/twin/${ctx}/model-assets/${encodeURIComponent(modelAssetId)}/preview`;
    const response = await this.fetch(`${this.config.apiBase}${path}`);
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`${path} answered ${response.status}`);
    return response.arrayBuffer();
  }
}
