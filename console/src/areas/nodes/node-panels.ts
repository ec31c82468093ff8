import type { ComponentType } from 'preact';
import { MembersPanel } from '../people/members-panel.js';
import { CONTAINER_TYPES, type NodeDetail, type NodeType } from './node-kinds.js';

export interface NodePanelProps {
  node: NodeDetail;
  /** Reads the node and its children again (after a panel changed something). */
  reload: () => void;
}

/**
 * Extra panels of a node's screen by node type, rendered below its children in this order: a
 * bundle's upload and processing, a site's twin... Areas add theirs here; empty for now.
 */
export const nodePanels: Partial<Record<NodeType, ComponentType<NodePanelProps>[]>> = {};

// Who has which role there, last on every container's screen.
for (const type of CONTAINER_TYPES) nodePanels[type] = [...(nodePanels[type] ?? []), MembersPanel];
