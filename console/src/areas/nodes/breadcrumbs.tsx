import { Link } from '../../ui/components.js';
import type { Node } from './node-kinds.js';
import { NodeIcon, nodeHref } from './node-label.js';

/**
 * Where the node is: its ancestors from the organization down, each a link, then the node itself.
 * A person whose roles start below the organization reads the path from their place down, after
 * a link back to their places (docs/console.md, "Data").
 */
export function Breadcrumbs(props: { ancestors: Node[]; node: Node }) {
  const top = props.ancestors[0] ?? props.node;
  return (
    <nav aria-label="Breadcrumb" class="breadcrumbs">
      <ol>
        {top.type !== 'organization' && (
          <li>
            <Link href="/places">Your places</Link>
          </li>
        )}
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
