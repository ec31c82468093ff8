import { ErrorNotice } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { type PagedList, usePagedList } from '../../ui/use-paged-list.js';
import type { Node } from './node-kinds.js';
import { NodeTable } from './node-table.js';

/** A node's children, 100 at a time (GET /v1/nodes/{nodeId}/browse, continued by its cursor). */
export function useChildren(nodeId: string): PagedList<Node> {
  const session = useSession();
  return usePagedList(
    (page) => session.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId }, query: page } }),
    [nodeId],
  );
}

export function ChildrenList(props: { node: Node; list: PagedList<Node> }) {
  const { node, list: children } = props;
  if (!children.items) return <LoadingOrError error={children.error} />;
  return (
    <section aria-label={`Contents of ${node.name}`} class="children">
      {children.items.length === 0 ? (
        <p>Nothing here yet.</p>
      ) : (
        <NodeTable caption={`Contents of ${node.name}`} nodes={children.items} />
      )}
      <ErrorNotice error={children.error} />
      <ShowMore list={children} what="items" />
    </section>
  );
}
