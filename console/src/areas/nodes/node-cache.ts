import { ok, RdpApiError } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import type { NodeDetail } from './node-kinds.js';

/**
 * Node reads kept for the session (tab): breadcrumbs walk up by parentId and reuse what was
 * read on the way down, so the path costs a request per ancestor only the first time. Any change
 * made through the console forgets them all (forgetNodes), so a renamed or moved ancestor is
 * read again.
 */
const reads = new WeakMap<ConsoleSession, Map<string, Promise<NodeDetail>>>();

function cacheOf(session: ConsoleSession): Map<string, Promise<NodeDetail>> {
  let cache = reads.get(session);
  if (!cache) {
    cache = new Map();
    reads.set(session, cache);
  }
  return cache;
}

/** GET /v1/nodes/{nodeId}, fresh, and kept for the breadcrumbs of the nodes below it. */
export function readNode(session: ConsoleSession, nodeId: string): Promise<NodeDetail> {
  const read = ok(session.api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId } } })) as Promise<NodeDetail>;
  const cache = cacheOf(session);
  cache.set(nodeId, read);
  read.catch(() => cache.delete(nodeId));
  return read;
}

/** The node as read before in this session, else read now. */
export function cachedNode(session: ConsoleSession, nodeId: string): Promise<NodeDetail> {
  return cacheOf(session).get(nodeId) ?? readNode(session, nodeId);
}

export function forgetNodes(session: ConsoleSession): void {
  cacheOf(session).clear();
}

/**
 * The node's ancestors from the organization down (the API has no path field: each parentId
 * is read in turn). A person whose access starts below the organization cannot read the nodes
 * above it: the path then starts at the highest node they can read.
 */
export async function loadAncestors(session: ConsoleSession, node: NodeDetail): Promise<NodeDetail[]> {
  const ancestors: NodeDetail[] = [];
  let parentId = node.parentId;
  // The hierarchy is at most a dozen levels deep; the bound only guards against a cycle.
  for (let level = 0; parentId && level < 64; level++) {
    try {
      const parent = await cachedNode(session, parentId);
      ancestors.unshift(parent);
      parentId = parent.parentId;
    } catch (error) {
      if (error instanceof RdpApiError && (error.status === 403 || error.status === 404)) break;
      throw error;
    }
  }
  return ancestors;
}
