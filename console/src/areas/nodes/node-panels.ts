import type { ComponentType } from 'preact';
import { MembersPanel } from '../people/members-panel.js';
import { TwinLinkPanel } from '../twin/twin-link-panel.js';
import { BundlePanel } from '../uploads/bundle-panel.js';
import { UploadPanel } from '../uploads/upload-panel.js';
import type { NodeDetail, NodeType } from './node-kinds.js';

export interface NodePanelProps {
  node: NodeDetail;
  /** Reads the node and its children again (after a panel changed something). */
  reload: () => void;
}

/**
 * Extra panels of a node's screen by node type, rendered below its children in this order: a
 * site's twin, uploads, a bundle's files and processing; who has which role there comes last on
 * every container.
 */
export const nodePanels: Partial<Record<NodeType, ComponentType<NodePanelProps>[]>> = {
  organization: [MembersPanel],
  division: [MembersPanel],
  site: [TwinLinkPanel, UploadPanel, MembersPanel],
  folder: [UploadPanel, MembersPanel],
  dataBundle: [BundlePanel],
};
