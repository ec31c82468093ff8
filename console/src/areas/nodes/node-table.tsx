import type { ComponentChildren } from 'preact';
import { kindName, type Node } from './node-kinds.js';
import { NodeIcon, NodeLink } from './node-label.js';
import type { PagedList } from './use-paged-list.js';

/**
 * Nodes as a table: the name links to the node's screen (not in the trash, where the node cannot
 * be opened: `linked` false); `extra` adds a column (the trash's actions).
 */
export function NodeTable(props: {
  caption: string;
  nodes: Node[];
  linked?: boolean;
  when?: { label: string; of: (node: Node) => string | null };
  extra?: { label: string; cell: (node: Node) => ComponentChildren };
}) {
  const when = props.when ?? { label: 'Changed', of: (node: Node) => node.updatedAt };
  return (
    <table class="nodes">
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Kind</th>
          <th scope="col">{when.label}</th>
          {props.extra && <th scope="col">{props.extra.label}</th>}
        </tr>
      </thead>
      <tbody>
        {props.nodes.map((node) => {
          const at = when.of(node);
          return (
            <tr key={node.id}>
              <td>
                {props.linked === false ? (
                  <>
                    <NodeIcon type={node.type} />
                    {node.name}
                  </>
                ) : (
                  <NodeLink node={node} />
                )}
              </td>
              <td>{kindName(node.type)}</td>
              <td>{at ? new Date(at).toLocaleString() : ''}</td>
              {props.extra && <td class="row-actions">{props.extra.cell(node)}</td>}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** "Show more" under a list read page by page; says how many are shown. */
export function ShowMore(props: { list: PagedList<unknown>; what: string }) {
  const { list } = props;
  if (!list.hasMore) return null;
  return (
    <p class="show-more">
      <span>
        {list.items?.length ?? 0} {props.what} shown.
      </span>{' '}
      <button type="button" class="quiet" disabled={list.loading} onClick={list.showMore}>
        {list.loading ? 'Loading…' : 'Show more'}
      </button>
    </p>
  );
}
