import { Link } from '../../ui/components.js';
import type { Node } from './node-kinds.js';
import { NodeIcon, nodeHref } from './node-label.js';

/** Where the node is: its ancestors from the organization down, each a link, then the node itself. */
export function Breadcrumbs(props: { ancestors: Node[]; node: Node }) {
  return (
    <nav aria-label="Breadcrumb" class="breadcrumbs">
      <ol>
        {props.ancestors.map((ancestor) => (
          <li key={ancestor.id}>
            <Link href={nodeHref(ancestor)}>
              <NodeIcon type={ancestor.type} />
              {ancestor.name}
            </Link>
          </li>
        ))}
        <li aria-current="page">
          <NodeIcon type={props.node.type} />
          {props.node.name}
        </li>
      </ol>
    </nav>
  );
}
