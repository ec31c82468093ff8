import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeRow } from '../../src/adapters/db/schema.js';
import { createNode, createOrg, insertDataNode, link, type OrgFixture, requestBetweenSnapshots } from '../support/fixtures.js';
import { startPlatform, type TestPlatform } from '../support/platform.js';

const MAX_DEPTH = 4;
const SHAPE_CODES = ['CircularityFound', 'DoesNotMeetHierarchyConstraints', 'MaxDepthExceeded'];

/**
 * The tree as the test believes it is, with the rules written out again independently of
 * src/domain: the oracle that says which move must succeed and which code a refusal carries.
 */
class TreeModel {
  readonly parents = new Map<string, string | null>();
  readonly kinds = new Map<string, string>();
  /** Nodes with memberships of their own: the permission boundaries. */
  readonly boundaries = new Set<string>();
  /** Source and derivative pairs, always created as siblings. */
  readonly pairs: [string, string][] = [];

  add(id: string, kind: string, parent: string | null) {
    this.kinds.set(id, kind);
    this.parents.set(id, parent);
  }

  ancestors(id: string, parents = this.parents): string[] {
    const chain: string[] = [];
    for (let at = parents.get(id) ?? null; at !== null; at = parents.get(at) ?? null) {
      if (chain.includes(at) || chain.length > this.parents.size) return [...chain, at]; // a cycle
      chain.push(at);
    }
    return chain;
  }

  hasCycle(parents: Map<string, string | null>): boolean {
    return [...parents.keys()].some((id) => this.ancestors(id, parents).includes(id));
  }

  /** Whether every node's kind is allowed under its parent (docs/design/hierarchy.md#node-kinds). */
  kindsAllowed(parents: Map<string, string | null>): boolean {
    const isData = (kind: string) => !['organization', 'division', 'site', 'folder'].includes(kind);
    for (const [id, parent] of parents) {
      if (parent === null) continue;
      const kind = this.kinds.get(id) as string;
      const parentKind = this.kinds.get(parent) as string;
      const parentInSite = [parent, ...this.ancestors(parent, parents)].some((at) => this.kinds.get(at) === 'site');
      const allowed =
        parentKind === 'organization'
          ? kind === 'division'
          : parentKind === 'division'
            ? kind === 'site' || kind === 'folder'
            : parentKind === 'site'
              ? kind === 'folder' || isData(kind)
              : parentKind === 'folder'
                ? parentInSite
                  ? kind === 'folder' || isData(kind)
                  : kind === 'site' || kind === 'folder'
                : false;
      if (!allowed) return false;
    }
    return true;
  }

  deepest(parents: Map<string, string | null>): number {
    return Math.max(...[...parents.keys()].map((id) => this.ancestors(id, parents).length));
  }

  boundaryOf(id: string): string | undefined {
    return [id, ...this.ancestors(id)].find((at) => this.boundaries.has(at));
  }

  /** The codes a move may be refused with; empty when it must succeed. */
  expectedRefusal(nodeId: string, targetId: string, force: boolean): string[] {
    const kind = this.kinds.get(nodeId);
    if (kind === 'organization' || kind === 'division') return ['NodeCannotBeMoved'];
    const parent = this.parents.get(nodeId) as string;
    if (parent === targetId) return [];
    const partners = this.pairs.flatMap(([a, b]) => (a === nodeId ? [b] : b === nodeId ? [a] : []));
    const group = [nodeId, ...partners.filter((partner) => this.parents.get(partner) === parent)];
    const after = new Map(this.parents);
    for (const member of group) after.set(member, targetId);

    if (this.hasCycle(after)) return ['CircularityFound'];
    const broken = [
      ...(this.kindsAllowed(after) ? [] : ['DoesNotMeetHierarchyConstraints']),
      ...(this.deepest(after) > MAX_DEPTH ? ['MaxDepthExceeded'] : []),
    ];
    if (broken.length > 0) return broken;
    if (this.boundaryOf(parent) !== this.boundaryOf(targetId)) {
      const subtrees = [...this.parents.keys()].filter((id) =>
        group.some((member) => [id, ...this.ancestors(id)].includes(member)),
      );
      if (subtrees.some((id) => this.boundaries.has(id))) return ['NodeHaveMembershipsAttached'];
      if (!force) return ['AccessRightsChangeRequired'];
    }
    return [];
  }

  applyMove(nodeId: string, targetId: string) {
    const parent = this.parents.get(nodeId);
    const partners = this.pairs.flatMap(([a, b]) => (a === nodeId ? [b] : b === nodeId ? [a] : []));
    for (const member of [nodeId, ...partners.filter((partner) => this.parents.get(partner) === parent)]) {
      this.parents.set(member, targetId);
    }
  }
}

/** What must hold of the stored tree after any sequence of moves, accepted or refused. */
function checkStoredTree(rows: NodeRow[], model: TreeModel) {
  const byId = new Map(rows.map((row) => [row.id, row]));
  const storedParents = new Map(rows.map((row) => [row.id, row.parent_id]));
  expect(storedParents).toEqual(model.parents);
  expect(model.kindsAllowed(storedParents)).toBe(true);
  for (const row of rows) {
    if (row.parent_id === null) {
      expect(row.path).toBe(`/${row.id}/`);
      continue;
    }
    const parent = byId.get(row.parent_id) as NodeRow;
    // Path and depth follow the parent, which rules out cycles.
    expect(row.path).toBe(`${parent.path}${row.id}/`);
    expect(row.depth).toBe(parent.depth + 1);
    expect(row.depth).toBeLessThanOrEqual(MAX_DEPTH);
    const nearestSite = [row.id, ...model.ancestors(row.id)].find((id) => byId.get(id)?.kind === 'site') ?? null;
    expect(row.site_id).toBe(nearestSite);
  }
  for (const [source, derivative] of model.pairs) expect(byId.get(source)?.parent_id).toBe(byId.get(derivative)?.parent_id);
}

const CREATE_KINDS = ['site', 'folder', 'folder', 'data', 'pair'] as const;
const pick = fc.nat({ max: 10_000 });
const treeArbitrary = fc.record({
  divisions: fc.integer({ min: 1, max: 3 }),
  creations: fc.array(fc.record({ kind: fc.constantFrom(...CREATE_KINDS), parent: pick }), { minLength: 4, maxLength: 16 }),
  boundaries: fc.array(pick, { maxLength: 3 }),
  moves: fc.array(fc.record({ node: pick, target: pick, force: fc.boolean(), forceIn: fc.constantFrom('body', 'query') }), {
    minLength: 1,
    maxLength: 15,
  }),
});
type TreePlan = typeof treeArbitrary extends fc.Arbitrary<infer Plan> ? Plan : never;

describe('property: random moves keep the tree whole', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startPlatform({ RDP_MAX_HIERARCHY_DEPTH: String(MAX_DEPTH) });
  });
  afterAll(() => t.close());

  async function buildTree(org: OrgFixture, plan: TreePlan) {
    const model = new TreeModel();
    model.add(org.orgId, 'organization', null);
    model.boundaries.add(org.orgId); // the administrator's membership
    const containers: string[] = [];
    for (let index = 0; index < plan.divisions; index += 1) {
      const id = await createNode(org, org.orgId, 'division', `Division ${index}`);
      model.add(id, 'division', org.orgId);
      containers.push(id);
    }
    const region = t.platform.regions[org.region];
    for (const [index, creation] of plan.creations.entries()) {
      // Half the time under one of the newest containers, so that deep chains form.
      const choices = creation.parent % 2 === 0 ? containers.slice(-3) : containers;
      const parentId = choices[Math.floor(creation.parent / 2) % choices.length] as string;
      if (creation.kind === 'site' || creation.kind === 'folder') {
        const body = creation.kind === 'site' ? { name: `n${index}`, address: 'a' } : { name: `n${index}` };
        const created = await org.admin.post(`/v1/nodes/${parentId}/${creation.kind}`, body);
        expect([201, 409]).toContain(created.status);
        if (created.status !== 201) continue;
        model.add(created.body.id, creation.kind, parentId);
        containers.push(created.body.id);
        continue;
      }
      const parent = (await region.nodes.findById(parentId)) as NodeRow;
      if (parent.site_id === null || parent.depth >= MAX_DEPTH) continue;
      const source = await insertDataNode(t, org, parentId, { kind: creation.kind === 'pair' ? 'dataBundle' : 'mesh' });
      model.add(source.id, source.kind, parentId);
      if (creation.kind === 'pair') {
        const derivative = await insertDataNode(t, org, parentId, { kind: 'pointCloud' });
        model.add(derivative.id, derivative.kind, parentId);
        await link(t, org, 'derivative', source.id, derivative.id);
        model.pairs.push([source.id, derivative.id]);
      }
    }
    const viewer = await t.admin.createApplication({
      orgId: org.orgId,
      name: 'Viewer',
      flow: 'client-credentials',
      scopes: ['read:hierarchy'],
    });
    for (const choice of plan.boundaries) {
      const nodeId = containers[choice % containers.length] as string;
      await t.admin.grantMembership({ nodeId, principalId: viewer.serviceUserId as string, roleId: org.roles.Viewer as string });
      model.boundaries.add(nodeId);
    }
    return model;
  }

  it('accepts exactly the moves the rules allow, and a refused move changes nothing', async () => {
    const storedRows = (org: OrgFixture) =>
      t.platform.regions[org.region].store.db.selectFrom('nodes').selectAll().where('org_id', '=', org.orgId).execute();
    const outcomes: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(treeArbitrary, async (plan) => {
        const org = await createOrg(t);
        const model = await buildTree(org, plan);
        const ids = [...model.parents.keys()];
        // Mostly nodes that can move; now and then the organization or a division.
        const movable = ids.filter((id) => !['organization', 'division'].includes(model.kinds.get(id) as string));
        for (const step of plan.moves) {
          const candidates = step.node % 8 === 0 || movable.length === 0 ? ids : movable;
          const nodeId = candidates[Math.floor(step.node / 8) % candidates.length] as string;
          const targetId = ids[step.target % ids.length] as string;
          const expected = model.expectedRefusal(nodeId, targetId, step.force);
          const path = `/v1/nodes/${nodeId}/move/${targetId}`;
          const { response, before, after } = await requestBetweenSnapshots(t, org, () =>
            step.force && step.forceIn === 'query'
              ? org.admin.patch(`${path}?force=true`)
              : org.admin.patch(path, { force: step.force }),
          );
          const outcome = response.status === 200 ? 'ok' : String(response.body.error);
          outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
          if (expected.length === 0) {
            expect(response.status, JSON.stringify(response.body)).toBe(200);
            model.applyMove(nodeId, targetId);
          } else {
            expect(response.status).toBe(409);
            expect(expected).toContain(response.body.error);
            expect(after).toEqual(before);
          }
          checkStoredTree(await storedRows(org), model);
        }
      }),
      { numRuns: 30 },
    );
    // Not vacuous: over the runs, moves were both accepted and refused for their shape.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(SHAPE_CODES.filter((code) => (outcomes[code] ?? 0) > 0).length).toBeGreaterThan(1);
  }, 120_000);
});
