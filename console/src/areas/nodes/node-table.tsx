import type { ComponentChildren } from 'preact';
import { kindName, type Node } from './node-kinds.js';
import { NodeIcon, NodeLink } from './node-label.js';

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
