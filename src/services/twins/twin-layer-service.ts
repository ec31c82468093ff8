import type { ComparisonRepository } from '../../adapters/db/repositories/comparison-repository.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { TwinLayerRepository } from '../../adapters/db/repositories/twin-layer-repository.js';
import type { ComparisonRow, NodeRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { assertLayerable } from '../../domain/comparisons/comparison-lifecycle.js';
import { ApiError } from '../../domain/errors.js';
import { comparisonLayerOf, type LayerView, layersOf } from '../../domain/twins/twin-layers.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';
import type { TwinService } from './twin-service.js';

const NO_BUNDLE = 'Data bundle not found';

export interface TwinLayerServiceOptions {
  clock: Clock;
  /** The regional API's base address: layers' tileset addresses start with it. */
  apiUrl: string;
  layers: TwinLayerRepository;
  /** A link holds the bundle's branch, so a move of it waits and then sees the link. */
  tree: Pick<NodeTreeRepository, 'transaction' | 'lockForChild'>;
  nodes: Pick<NodeService, 'authorize'>;
  twins: Pick<TwinService, 'site' | 'ensureTwin' | 'audit'>;
  /** Comparisons of the site shown as layers (docs/comparisons.md, "Outputs"). */
  comparisons: Pick<ComparisonRepository, 'find' | 'layersOfSite' | 'setLayer'>;
}

/**
 * A twin's layers (docs/twins.md, "Layers"): processed data bundles of the site linked to its
 * live twin. Linking needs edit on the site and read on the bundle; drafts read the same layers.
 */
export class TwinLayerService {
  private readonly clock: Clock;
  private readonly apiUrl: string;
  private readonly layers: TwinLayerRepository;
  private readonly tree: TwinLayerServiceOptions['tree'];
  private readonly nodes: TwinLayerServiceOptions['nodes'];
  private readonly twins: TwinLayerServiceOptions['twins'];
  private readonly comparisons: TwinLayerServiceOptions['comparisons'];

  constructor(options: TwinLayerServiceOptions) {
    this.comparisons = options.comparisons;
    this.clock = options.clock;
    this.apiUrl = options.apiUrl;
    this.layers = options.layers;
    this.tree = options.tree;
    this.nodes = options.nodes;
    this.twins = options.twins;
  }

  /** The layers the site's twin shows: linked bundles not in the trash that serve a tileset, then linked comparisons. */
  async ofSite(siteId: string): Promise<LayerView[]> {
    return this.layers.readTransaction(async (tx) => {
      const bundleIds = await this.layers.linkedBundles(siteId, tx);
      const comparisons = (await this.comparisons.layersOfSite(siteId, tx)).map((row) => comparisonLayerOf(row, this.apiUrl));
      return [...layersOf(bundleIds, await this.layers.candidates(bundleIds, tx), this.apiUrl), ...comparisons];
    });
  }

  /** The layers the bundles show, in their order: those not in the trash that serve a tileset. */
  async ofBundles(bundleIds: string[]): Promise<LayerView[]> {
    return layersOf(bundleIds, await this.layers.candidates(bundleIds), this.apiUrl);
  }

  /** The layer a bundle shows, or 409 DataBundleHasNoTileset. */
  private async layerOf(bundleId: string): Promise<LayerView> {
    const [layer] = layersOf([bundleId], await this.layers.candidates([bundleId]), this.apiUrl);
    if (!layer) throw new ApiError('DataBundleHasNoTileset');
    return layer;
  }

  /**
   * Links the bundle to the site's twin; `created` false when it already was (nothing written).
   * The bundle's branch is locked while linking, so a move of it waits and then sees the link.
   */
  async link(principal: Principal, siteId: string, bundleId: string): Promise<{ layer: LayerView; created: boolean }> {
    const site = await this.twins.site(principal, siteId, 'edit');
    const comparison = await this.comparisonOf(site, bundleId);
    if (comparison) return this.linkComparison(principal, site, comparison);
    const bundle = await this.bundle(principal, bundleId);
    if (bundle.site_id !== site.id) throw new ApiError('DataBundleNotInSite');
    let layer = await this.layerOf(bundle.id);
    // Made after the checks, so a refused link leaves no twin behind.
    await this.twins.ensureTwin(site);
    const now = this.now();
    const created = await this.tree.transaction(async (tx) => {
      const locked = await this.tree.lockForChild(tx, bundle);
      if (!locked || locked.trashed_at) throw new ApiError('NotFound', NO_BUNDLE);
      if (locked.site_id !== site.id) throw new ApiError('DataBundleNotInSite');
      if (!(await this.layers.link(tx, bundle.id, site.id, now))) return false;
      await this.layers.touchTwin(tx, site.id, now);
      // Read again in the transaction: a derivative may have been trashed since the check.
      const [fresh] = layersOf([bundle.id], await this.layers.candidates([bundle.id], tx), this.apiUrl);
      if (!fresh) throw new ApiError('DataBundleHasNoTileset');
      layer = fresh;
      await this.twins.audit(tx, principal, 'twin-layer.linked', bundle.id, this.details(site, layer), now);
      return true;
    });
    return { layer, created };
  }

  /** Unlinks the bundle; 404 when it is not linked to this site's twin. */
  async unlink(principal: Principal, siteId: string, bundleId: string): Promise<void> {
    const site = await this.twins.site(principal, siteId, 'edit');
    const now = this.now();
    const comparison = await this.comparisonOf(site, bundleId);
    await this.tree.transaction(async (tx) => {
      const unlinked = comparison
        ? await this.comparisons.setLayer(tx, comparison.id, null)
        : await this.layers.unlink(tx, bundleId, site.id);
      if (!unlinked) {
        throw new ApiError('NotFound', 'The data bundle is not a layer of this twin');
      }
      await this.layers.touchTwin(tx, site.id, now);
      await this.twins.audit(tx, principal, 'twin-layer.unlinked', bundleId, { siteId: site.id, bundleId }, now);
    });
  }

  /** The site's comparison of that id, or undefined (then the id is taken for a bundle's). */
  private async comparisonOf(site: NodeRow, id: string): Promise<ComparisonRow | undefined> {
    const row = await this.comparisons.find(id);
    return row && row.org_id === site.org_id && row.site_id === site.id ? row : undefined;
  }

  /** A ready comparison shown as a layer of its site's twin; `created` false when it already was. */
  private async linkComparison(principal: Principal, site: NodeRow, comparison: ComparisonRow) {
    assertLayerable(comparison.state);
    await this.twins.ensureTwin(site);
    const now = this.now();
    const layer = comparisonLayerOf(comparison, this.apiUrl);
    const created = await this.tree.transaction(async (tx) => {
      if (!(await this.comparisons.setLayer(tx, comparison.id, now))) return false;
      await this.layers.touchTwin(tx, site.id, now);
      await this.twins.audit(tx, principal, 'twin-layer.linked', comparison.id, this.details(site, layer), now);
      return true;
    });
    return { layer, created };
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /** A data bundle the caller may read; anything else (a folder, another organization's, none) is 404. */
  private async bundle(principal: Principal, bundleId: string): Promise<NodeRow> {
    let node: NodeRow;
    try {
      node = await this.nodes.authorize(principal, bundleId, 'read');
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) throw new ApiError('NotFound', NO_BUNDLE);
      throw error;
    }
    if (node.kind !== 'dataBundle') throw new ApiError('NotFound', NO_BUNDLE);
    return node;
  }

  private details(site: NodeRow, layer: LayerView) {
    const comparisonId = layer.comparison?.comparisonId;
    return {
      siteId: site.id,
      bundleId: layer.bundleId,
      nodeId: layer.nodeId,
      kind: layer.kind,
      ...(comparisonId ? { comparisonId } : {}),
    };
  }
}
