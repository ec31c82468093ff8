import { Link } from '../../ui/components.js';
import { NODE_KINDS, type Node, type NodeType } from './node-kinds.js';

/** The kind's icon as text; decoration only, the kind is also said in words beside it. */
export function NodeIcon(props: { type: NodeType }) {
  return (
    <span class="node-icon" aria-hidden="true">
      {NODE_KINDS[props.type]?.icon ?? '•'}
    </span>
  );
}

/** The console address of a node's screen: the organization's is the Data screen. */
export function nodeHref(node: Pick<Node, 'id' | 'type'>): string {
  return node.type === 'organization' ? '/' : `/nodes/${node.id}`;
}

/** A node's name with its icon, linking to its screen. */
export function NodeLink(props: { node: Node }) {
  return (
    <Link href={nodeHref(props.node)}>
      <NodeIcon type={props.node.type} />
      {props.node.name}
    </Link>
  );
}
