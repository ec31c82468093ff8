import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { BundleRepository } from '../../adapters/db/repositories/bundle-repository.js';
import type { NodeRepository } from '../../adapters/db/repositories/node-repository.js';
import { newNodeRow } from '../../adapters/db/repositories/node-rows.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { PlanningRepository } from '../../adapters/db/repositories/planning-repository.js';
import type { NodeRow, PlanningLayoutRow, RegionalSchema } from '../../adapters/db/schema.js';
import type { Permission } from '../../domain/access/permissions.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { projectName } from '../../domain/planning/projects.js';
import type { Clock } from '../../ports/clock.js';
import type { NodeService } from '../node-service.js';

type Tx = Transaction<RegionalSchema>;

/** What a layout's routes act on: the layout and its project's node (active, the caller holding the permission on it). */
export interface LayoutContext {
  layout: PlanningLayoutRow;
  project: NodeRow;
}

export interface LayoutView extends PlanningLayoutRow {
  modelAssetCount: number;
}

const DEFAULT_LAYOUT_NAME = 'Default layout';
const NO_PROJECT = 'No planning project or layout with this id';

export interface PlanningServiceOptions {
  clock: Clock;
  planning: PlanningRepository;
  nodes: Pick<NodeService, 'authorize' | 'checkChild'>;
  /** A project's creation: its node inserted under the bundle's parent, both branches held. */
  tree: Pick<NodeTreeRepository, 'transaction' | 'lockBranches'>;
  nodeRows: Pick<NodeRepository, 'insert'>;
  /** The bundle must be ready. */
  bundles: Pick<BundleRepository, 'find'>;
  audit: Pick<AuditRepository, 'record'>;
}

/**
 * Planning projects (docs/design/planning.md#projects, docs/planning.md): a project is a node
 * beside its data bundle, linked to it as a dependant, holding layouts where library models are
 * placed. Access to a project and its layouts is its node's.
 */
export class PlanningService {
  private readonly clock: Clock;
  private readonly planning: PlanningRepository;
  private readonly nodes: PlanningServiceOptions['nodes'];
  private readonly tree: PlanningServiceOptions['tree'];
  private readonly nodeRows: PlanningServiceOptions['nodeRows'];
  private readonly bundles: PlanningServiceOptions['bundles'];
  private readonly audit: PlanningServiceOptions['audit'];

  constructor(options: PlanningServiceOptions) {
    this.clock = options.clock;
    this.planning = options.planning;
    this.nodes = options.nodes;
    this.tree = options.tree;
    this.nodeRows = options.nodeRows;
    this.bundles = options.bundles;
    this.audit = options.audit;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  /**
   * A project beside the bundle, with its default layout, in one transaction with its audit event.
   * 404: the bundle is missing, trashed, unreadable or another organization's; 403: no edit on its
   * parent (creating a node there); 409 BundleNotReady: its state is not ready.
   */
  async createProject(principal: Principal, bundleId: string, name: string | undefined) {
    const bundle = await this.nodes.authorize(principal, bundleId, 'read');
    if (bundle.kind !== 'dataBundle' || !bundle.parent_id) throw new ApiError('NotFound', 'Data bundle not found');
    const parentSeen = await this.nodes.authorize(principal, bundle.parent_id, 'edit');
    await this.checkReady(bundle.id);
    const { tree } = this;
    return tree.transaction(async (tx) => {
      // The parent gets a child and the bundle a link: both held (FOR KEY SHARE) against a
      // concurrent delete or move, which then sees the project (NodeHasBundleDependants).
      const locked = await tree.lockBranches(tx, [], [parentSeen, bundle]);
      const parent = locked?.get(parentSeen.id);
      const source = locked?.get(bundle.id);
      if (!parent || !source || parent.trashed_at || source.trashed_at || source.parent_id !== parent.id) {
        throw new ApiError('NotFound', 'Data bundle not found');
      }
      await this.checkReady(bundle.id, tx);
      this.nodes.checkChild(parent, 'planningProject');
      const now = this.now();
      const project = newNodeRow(parent, { kind: 'planningProject', name: name ?? projectName(source.name), now });
      await this.nodeRows.insert(project, tx);
      await this.planning.insertLink(tx, { kind: 'dependant', from_id: source.id, to_id: project.id, created_at: now });
      const layout: PlanningLayoutRow = {
        id: randomUUID(),
        org_id: project.org_id,
        project_id: project.id,
        name: DEFAULT_LAYOUT_NAME,
        is_default: 1,
        created_by: principal.userId,
        created_at: now,
        updated_at: now,
      };
      await this.planning.insertLayout(tx, layout);
      await this.audit.record(tx, {
        orgId: principal.orgId,
        actor: { type: 'principal', id: principal.userId },
        action: 'planning-project.created',
        target: { type: 'planning-project', id: project.id },
        details: { name: project.name, bundleId: source.id, parentId: parent.id, defaultLayoutId: layout.id },
        at: now,
      });
      return { project, bundleId: source.id, defaultLayout: { ...layout, modelAssetCount: 0 } };
    });
  }

  private async checkReady(bundleId: string, tx?: Tx): Promise<void> {
    const row = await this.bundles.find(bundleId, tx);
    if (!row) throw new ApiError('NotFound', 'Data bundle not found');
    if (row.state !== 'ready') {
      throw new ApiError('BundleNotReady', `The data bundle is not ready (its state is ${row.state}): process its input first`);
    }
  }

  /**
   * The layout a {ctx} names, its project node authorized for the permission (404 when the project
   * is trashed or unreadable, 403 without the permission); undefined when no layout of the
   * caller's organization has that id (the id may name a twin instead).
   */
  async layoutContext(principal: Principal, contextId: string, permission: Permission): Promise<LayoutContext | undefined> {
    const layout = await this.planning.findLayout(principal.orgId, contextId);
    if (!layout) return undefined;
    return { layout, project: await this.nodes.authorize(principal, layout.project_id, permission) };
  }

  /**
   * The layouts a {ctx} shows: a project id, the project's layouts; a layout id, that layout alone
   * (the narrower context, as an embed session of one layout sees only it). Read on the project.
   */
  async listLayouts(principal: Principal, contextId: string, page: number, limit: number) {
    const context = await this.layoutContext(principal, contextId, 'read');
    let rows: PlanningLayoutRow[];
    let total: number;
    if (context) {
      rows = page === 1 ? [context.layout] : [];
      total = 1;
    } else {
      const project = await this.nodes.authorize(principal, contextId, 'read').catch((error: unknown) => {
        throw error instanceof ApiError && error.status === 404 ? new ApiError('NotFound', NO_PROJECT) : error;
      });
      if (project.kind !== 'planningProject') throw new ApiError('NotFound', NO_PROJECT);
      ({ rows, total } = await this.planning.layoutsOf(project.id, limit, (page - 1) * limit));
    }
    const counts = await this.planning.modelAssetCounts(rows.map((row) => row.id));
    const items: LayoutView[] = rows.map((row) => ({ ...row, modelAssetCount: counts.get(row.id) ?? 0 }));
    return { items, page, limit, total };
  }

  /** The planning project with this id, authorized for the permission; 404 for any other node or none. */
  async project(principal: Principal, id: string, permission: Permission): Promise<NodeRow> {
    const project = await this.nodes.authorize(principal, id, permission).catch((error: unknown) => {
      throw error instanceof ApiError && error.status === 404 ? new ApiError('NotFound', NO_PROJECT) : error;
    });
    if (project.kind !== 'planningProject') throw new ApiError('NotFound', NO_PROJECT);
    return project;
  }

  /**
   * What an embed session of a planning target reaches (docs/embedding.md): the {ctx} values (a
   * project: itself and its layouts; a layout: itself alone) and the derivative nodes whose tiles
   * it shows (the point clouds of the project's bundle).
   */
  async embedReach(
    orgId: string,
    target: { type: 'project' | 'layout'; id: string },
  ): Promise<{ contextIds: string[]; layerNodeIds: string[] }> {
    if (target.type === 'project') {
      return {
        contextIds: [target.id, ...(await this.planning.layoutIdsOf(target.id))],
        layerNodeIds: await this.planning.derivativeIdsOfProject(target.id),
      };
    }
    const layout = await this.planning.findLayout(orgId, target.id);
    return {
      contextIds: [target.id],
      layerNodeIds: layout ? await this.planning.derivativeIdsOfProject(layout.project_id) : [],
    };
  }

  /**
   * The project a {ctx} names (a project id, or a layout's project), read on it, and the bundle
   * it was made from: what the plan shows under its model assets (GET /v1/planning/{ctx}/layers).
   */
  async planOf(principal: Principal, contextId: string): Promise<{ project: NodeRow; bundleId: string | undefined }> {
    const context = await this.layoutContext(principal, contextId, 'read');
    const project = context?.project ?? (await this.project(principal, contextId, 'read'));
    return { project, bundleId: await this.planning.bundleIdOfProject(project.id) };
  }
}
