/**
 * A person's places (docs/design/places.md): the highest nodes where the person holds a role,
 * directly or through a group, and the way down to them from a node it cannot read.
 */

/** A role the principal holds on a node, as the memberships read it. */
export interface HeldRole {
  nodeId: string;
  /** The node's path: ids from the organization down to it, each followed by '/' ("/org/div/site/"). */
  path: string;
  roleId: string;
  roleName: string;
  /** Held by the principal itself rather than through one of its groups. */
  direct: boolean;
}

/** The ids above a node, organization first: its path without its own id. */
function ancestorIds(path: string): string[] {
  return path
    .split('/')
    .filter((id) => id !== '')
    .slice(0, -1);
}

/**
 * One role per node, the one held directly before one held through a group, then by role name
 * and id: a node where the principal holds several roles is one place.
 */
function oneRolePerNode<T extends HeldRole>(held: readonly T[]): T[] {
  const preferred = (a: T, b: T) =>
    Number(b.direct) - Number(a.direct) || a.roleName.localeCompare(b.roleName) || (a.roleId < b.roleId ? -1 : 1);
  const byNode = new Map<string, T>();
  for (const role of held) {
    const kept = byNode.get(role.nodeId);
    if (!kept || preferred(role, kept) < 0) byNode.set(role.nodeId, role);
  }
  return [...byNode.values()];
}

/**
 * The highest nodes among those where roles are held: a role on a division covers its sites, so a
 * node below another held node is left out. Order is the input's (first role of each node kept).
 */
export function highestPlaces<T extends HeldRole>(held: readonly T[]): T[] {
  const nodes = new Set(held.map((role) => role.nodeId));
  const kept = new Set(oneRolePerNode(held.filter((role) => !ancestorIds(role.path).some((id) => nodes.has(id)))));
  return held.filter((role) => kept.has(role));
}

/**
 * The children of `nodeId` on the way down to the places at `placePaths`: for each place strictly
 * below the node, the id that follows the node's in its path. Empty when no place lies below it.
 */
export function childrenTowards(nodeId: string, placePaths: Iterable<string>): Set<string> {
  const children = new Set<string>();
  for (const path of placePaths) {
    const ids = path.split('/').filter((id) => id !== '');
    const at = ids.indexOf(nodeId);
    const next = at === -1 ? undefined : ids[at + 1];
    if (next !== undefined) children.add(next);
  }
  return children;
}
