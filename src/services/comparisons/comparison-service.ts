import { randomUUID } from 'node:crypto';
import type { ComparisonRepository } from '../../adapters/db/repositories/comparison-repository.js';
import type { DirectoryRepository } from '../../adapters/db/repositories/directory-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { ComparisonRow, NodeRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import {
  type ComparisonMethod,
  comparisonCost,
  comparisonSettings,
  isFinished,
} from '../../domain/comparisons/comparison-lifecycle.js';
import {
  comparisonBlobPrefix,
  comparisonCsvKey,
  comparisonTilesetUrl,
  comparisonTilesPrefix,
} from '../../domain/comparisons/comparison-outputs.js';
import { ApiError } from '../../domain/errors.js';
import type { BlobStore } from '../../ports/blob-store.js';
import type { Clock } from '../../ports/clock.js';
import { AdmittedReads } from '../processing/admitted-reads.js';
import type { TwinService } from '../twins/twin-service.js';
import type { BundleService } from '../uploads/bundle-service.js';
import type { ComparisonLifecycle } from './comparison-lifecycle.js';

/** How long a CSV link stays valid. */
const CSV_LINK_SECONDS = 3600;
const NO_COMPARISON = 'Comparison not found';

export interface ComparisonRequest {
  name?: string;
  referenceBundleId: string;
  comparedBundleId: string;
  method?: ComparisonMethod;
  maxDistance?: number;
  tolerance?: number;
  cost: number;
}

export interface ComparisonServiceOptions {
  clock: Clock;
  /** The regional API's base address: the tileset's address starts with it. */
  apiUrl: string;
  /** The site the {ctx} names, with the caller's permission on it; the audit trail. */
  twins: Pick<TwinService, 'site' | 'audit'>;
  /** A bundle the caller may read, and its row. */
  bundles: Pick<BundleService, 'authorized'>;
  comparisons: ComparisonRepository;
  /** The organization's own processing slots, which a comparison takes one of. */
  organizations: Pick<DirectoryRepository, 'findOrganization'>;
  lifecycle: Pick<ComparisonLifecycle, 'start' | 'progress'>;
  /** The CSV's signed link; a deleted comparison's files at once (the queue retries what fails). */
  blobs: Pick<BlobStore, 'downloadUrl' | 'deletePrefix'>;
  deletions: Pick<UploadRepository, 'queueDeletions'>;
}

/**
 * Comparisons as the routes ask for them (docs/comparisons.md): the cost, the submission that
 * checks access, bundles, settings and cost and starts one (ComparisonLifecycle), reads and delete.
 */
export class ComparisonService {
  /**
   * Tile reads admitted in the last second, by caller and comparison: the tileset's folder, as for
   * a derivative's tiles (TilesetService). A refusal is never kept; a comparison this process
   * deletes stops serving at once, one deleted through another within the second.
   */
  private readonly admittedTiles = new AdmittedReads<string>();

  constructor(private readonly options: ComparisonServiceOptions) {}

  /** The current cost of comparing the two bundles: a function of their points. */
  async cost(principal: Principal, siteId: string, referenceBundleId: string, comparedBundleId: string) {
    const site = await this.options.twins.site(principal, siteId, 'read');
    // The same bundle twice is the submission's 400 too (the settings' first rule).
    comparisonSettings({ referenceBundleId, comparedBundleId });
    return { cost: await this.costOf(principal, site, referenceBundleId, comparedBundleId), unit: 'credits' };
  }

  /** Both bundles point clouds processed on the site (404 otherwise: another site's, another organization's), ready (409 BundleNotReady). */
  private async costOf(principal: Principal, site: NodeRow, referenceBundleId: string, comparedBundleId: string) {
    const scan = async (bundleId: string) => {
      const { node, bundle } = await this.options.bundles.authorized(principal, bundleId, 'read');
      if (node.site_id !== site.id) throw new ApiError('NotFound', 'Data bundle not found');
      const processing = await this.options.comparisons.pointCloudProcessing(bundle.node_id);
      if (bundle.state !== 'ready' || !processing) {
        throw new ApiError(
          'BundleNotReady',
          `The data bundle ${bundleId} is not a processed point cloud: process its point cloud first`,
        );
      }
      return { points: processing.point_count, inputBytes: processing.input_bytes };
    };
    return comparisonCost(await scan(referenceBundleId), await scan(comparedBundleId));
  }

  /** Starts a comparison: 202 with it, queued. A refusal stores nothing. */
  async submit(principal: Principal, siteId: string, request: ComparisonRequest) {
    const site = await this.options.twins.site(principal, siteId, 'process');
    const settings = comparisonSettings(request);
    const cost = await this.costOf(principal, site, request.referenceBundleId, request.comparedBundleId);
    if (request.cost !== cost)
      throw new ApiError('ProcessingCostMismatch', `The current cost is ${cost}; fetch a fresh estimate`);
    const now = this.options.clock.now().toISOString();
    const id = randomUUID();
    const row: ComparisonRow = {
      id,
      org_id: site.org_id,
      site_id: site.id,
      name: request.name ?? `Comparison ${now.slice(0, 10)}`,
      reference_bundle_id: request.referenceBundleId,
      compared_bundle_id: request.comparedBundleId,
      method: settings.method,
      max_distance: settings.maxDistance,
      tolerance: settings.tolerance,
      cost,
      state: 'queued',
      failure_reason: null,
      stats: null,
      histogram: null,
      georeference: null,
      bounds: null,
      attributes: null,
      job_id: null,
      layer_linked_at: null,
      size_bytes: 0,
      created_by: principal.userId,
      created_at: now,
      started_at: null,
      finished_at: null,
    };
    const details = {
      siteId: site.id,
      ...this.ids(row),
      method: row.method,
      maxDistance: row.max_distance,
      tolerance: row.tolerance,
      cost,
    };
    const org = await this.options.organizations.findOrganization(site.org_id);
    await this.options.lifecycle.start(row, org?.processing_slots ?? null, (tx) =>
      this.options.twins.audit(tx, principal, 'comparison.created', id, details, now),
    );
    return this.view(row);
  }

  async list(principal: Principal, siteId: string, limit: number, offset: number) {
    const site = await this.options.twins.site(principal, siteId, 'read');
    const rows = await this.options.comparisons.ofSite(site.id, limit, offset);
    return Promise.all(rows.map((row) => this.view(row)));
  }

  async get(principal: Principal, siteId: string, comparisonId: string) {
    const site = await this.options.twins.site(principal, siteId, 'read');
    return this.view(await this.row(site, comparisonId));
  }

  /**
   * Removes the comparison, its layer with it, and its files (a job still running finds it gone
   * and removes what it wrote). 404 when it is not the site's.
   */
  async delete(principal: Principal, siteId: string, comparisonId: string): Promise<void> {
    const { comparisons, deletions, twins, clock, blobs } = this.options;
    const site = await twins.site(principal, siteId, 'process');
    const row = await this.row(site, comparisonId);
    const now = clock.now().toISOString();
    const prefix = comparisonBlobPrefix(row.org_id, row.id);
    await comparisons.transaction(async (tx) => {
      if (!(await comparisons.delete(tx, row.id))) throw new ApiError('NotFound', NO_COMPARISON);
      await deletions.queueDeletions(tx, [{ key: prefix }], now);
      await twins.audit(tx, principal, 'comparison.deleted', row.id, { siteId: site.id, ...this.ids(row) }, now);
    });
    // At once, so that nothing of it is served or kept; the queued deletion retries what fails here.
    this.admittedTiles.forget(row.id);
    await blobs.deletePrefix(prefix).catch(() => undefined);
  }

  /**
   * The folder of a ready comparison's tileset, for the tile routes; 404 otherwise. A caller's
   * admitted read is reused for a second (docs/comparisons.md, "Limits").
   */
  tilesFolder(principal: Principal, siteId: string, comparisonId: string): Promise<string> {
    return this.admittedTiles.get(principal, `${siteId}\n${comparisonId}`, async () => {
      const site = await this.options.twins.site(principal, siteId, 'read');
      const row = await this.row(site, comparisonId);
      if (row.state !== 'ready') throw new ApiError('NotFound', 'The comparison has no tileset until it is ready');
      return comparisonTilesPrefix(row.org_id, row.id);
    });
  }

  private async row(site: NodeRow, comparisonId: string): Promise<ComparisonRow> {
    const row = await this.options.comparisons.find(comparisonId);
    if (!row || row.org_id !== site.org_id || row.site_id !== site.id) throw new ApiError('NotFound', NO_COMPARISON);
    return row;
  }

  private ids(row: ComparisonRow) {
    return { referenceBundleId: row.reference_bundle_id, comparedBundleId: row.compared_bundle_id };
  }

  /** 0 while queued, the job's last report while running, 1 when ready; null when failed. */
  private async progress(row: ComparisonRow): Promise<number | null> {
    if (row.state === 'queued') return 0;
    if (row.state === 'ready') return 1;
    if (isFinished(row.state)) return null;
    return (await this.options.lifecycle.progress(row)) ?? 0;
  }

  /** The comparison as the API shows it (docs/comparisons.md, "Comparison object"). */
  private async view(row: ComparisonRow) {
    const ready = row.state === 'ready';
    const expiresAt = new Date(this.options.clock.now().getTime() + CSV_LINK_SECONDS * 1000);
    return {
      id: row.id,
      name: row.name,
      referenceBundleId: row.reference_bundle_id,
      comparedBundleId: row.compared_bundle_id,
      method: row.method,
      maxDistance: row.max_distance,
      tolerance: row.tolerance,
      cost: row.cost,
      state: row.state,
      progress: await this.progress(row),
      failureReason: row.failure_reason,
      stats: ready && row.stats ? JSON.parse(row.stats) : null,
      histogram: ready && row.histogram ? JSON.parse(row.histogram) : null,
      tilesetUrl: ready ? comparisonTilesetUrl(this.options.apiUrl, row.site_id, row.id) : null,
      downloadUrl: ready
        ? await this.options.blobs.downloadUrl(comparisonCsvKey(row.org_id, row.id), expiresAt, {
            fileName: `${row.id}-distances.csv`,
            contentType: 'text/csv',
          })
        : null,
      createdBy: row.created_by,
      createdAt: row.created_at,
      startedAt: row.started_at,
      finishedAt: row.finished_at,
    };
  }
}
