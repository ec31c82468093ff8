import type { ErrorCode } from '../errors.js';
import { allowsChild, childInSite, isDataKind, isMovableKind, type NodeKind, type Placement } from './hierarchy.js';

/** What the store knows about a node taking part in a move. */
export interface MoveNode {
  id: string;
  kind: NodeKind;
  parentId: string | null;
  path: string;
  depth: number;
  inSite: boolean;
}

/** Facts about the moved subtrees and their links, gathered by the repository in one transaction. */
export interface MoveFacts {
  node: MoveNode;
  target: MoveNode;
  /** The node and the derivatives and sources that move with it (docs/design/hierarchy.md#derivatives). */
  group: MoveNode[];
  /** Derivatives and sources of the group that are not siblings of the node. */
  strayDerivatives: number;
  straySources: number;
  /** Deepest depth below each moved node, as an offset from that node (0 for a leaf). */
  subtreeHeight: number;
  subtreeHasSite: boolean;
  subtreeHasData: boolean;
  /** A data bundle in the moved subtrees is linked to a twin outside them. */
  linkedToOutsideTwin: boolean;
  /** The nearest node with memberships at or above the current parent and the target. */
  sourceBoundaryId: string | null;
  targetBoundaryId: string | null;
  /** Memberships exist on a node inside the moved subtrees. */
  subtreeHasMemberships: boolean;
  maxDepth: number;
  force: boolean;
}

export function isInSubtree(path: string, ancestorPath: string): boolean {
  return path.startsWith(ancestorPath);
}

/** The first rule a move breaks, in the order the spec's table reads, or null when it may go ahead. */
export function checkMove(facts: MoveFacts): { code: ErrorCode; message?: string } | null {
  const { node, target } = facts;
  if (!isMovableKind(node.kind)) return { code: 'NodeCannotBeMoved', message: `A ${node.kind} cannot be moved` };
  if (facts.group.some((member) => isInSubtree(target.path, member.path))) return { code: 'CircularityFound' };

  const targetPlacement: Placement = { kind: target.kind, inSite: target.inSite };
  for (const member of facts.group) {
    if (!allowsChild(targetPlacement, member.kind)) {
      return {
        code: 'DoesNotMeetHierarchyConstraints',
        message: `A ${target.kind} ${target.inSite ? 'inside a site ' : ''}cannot hold a ${member.kind}`,
      };
    }
  }
  // A folder changing between site and division context takes its subtree along.
  const movedInSite = childInSite(targetPlacement, node.kind);
  if (node.kind === 'folder' && movedInSite !== node.inSite) {
    if (movedInSite && facts.subtreeHasSite) {
      return { code: 'DoesNotMeetHierarchyConstraints', message: 'A folder holding sites cannot move into a site' };
    }
    if (!movedInSite && facts.subtreeHasData) {
      return {
        code: 'DoesNotMeetHierarchyConstraints',
        message: 'A folder holding data items cannot move out of a site',
      };
    }
  }

  const newDeepest = target.depth + 1 + facts.subtreeHeight;
  if (newDeepest > facts.maxDepth) {
    return {
      code: 'MaxDepthExceeded',
      message: `The move would place nodes at depth ${newDeepest}; the maximum is ${facts.maxDepth}`,
    };
  }
  if (facts.linkedToOutsideTwin) return { code: 'DataBundleLinkedToTwin' };
  if (facts.strayDerivatives > 0) return { code: 'DerivativesNotInCommonParent' };
  if (facts.straySources > 0) return { code: 'SourcesNotInCommonParent' };

  if (facts.sourceBoundaryId !== facts.targetBoundaryId) {
    if (facts.subtreeHasMemberships) return { code: 'NodeHaveMembershipsAttached' };
    if (!facts.force) {
      return {
        code: 'AccessRightsChangeRequired',
        message:
          'The target lies under different memberships, so the people who can access the node would change; retry with force: true to accept',
      };
    }
  }
  return null;
}

/** Whether a node kind may have derivatives (sources and outputs of processing are data items). */
export function mayHaveLinks(kind: NodeKind): boolean {
  return isDataKind(kind);
}
