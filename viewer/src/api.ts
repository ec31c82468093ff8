import type { ModelAsset, PointOfInterest, Twin, ViewerConfig, Zone } from './viewer-types.js';

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

  constructor(
    private readonly config: ViewerConfig,
    readonly token: string,
  ) {}

  get authorization(): Record<string, string> {
    return { Authorization: `Bearer ${this.token}` };
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
    return this.json<Twin>(`/twin/${encodeURIComponent(this.config.ctx)}`);
  }

  /** Every item of a twin list (a flat array per page, docs/twins.md), page by page. */
  async all<T>(kind: 'points-of-interest' | 'zones' | 'model-assets'): Promise<T[]> {
    const items: T[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.json<T[]>(`/twin/${encodeURIComponent(this.config.ctx)}/${kind}?limit=${PAGE}&offset=${offset}`);
      items.push(...page);
      if (page.length < PAGE) return items;
    }
  }

  pointsOfInterest(): Promise<PointOfInterest[]> {
    return this.all<PointOfInterest>('points-of-interest');
  }

  zones(): Promise<Zone[]> {
    return this.all<Zone>('zones');
  }

  modelAssets(): Promise<ModelAsset[]> {
    return this.all<ModelAsset>('model-assets');
  }

  /**
   * A library model's preview address, or null when the token may not have it: the links need
   * download:assetlibrary, which an embed session's token never carries (docs/viewer.md).
   */
  async previewUrl(libraryModelId: string): Promise<string | null> {
    const url = `${this.config.apiBase}/asset-library/models/${encodeURIComponent(libraryModelId)}?includeDownloadLinks=true`;
    const response = await this.fetch(url, false);
    if (!response.ok) return null;
    const model = (await response.json()) as { downloadLinks?: { preview?: { url: string } | null } };
    return model.downloadLinks?.preview?.url ?? null;
  }
}
