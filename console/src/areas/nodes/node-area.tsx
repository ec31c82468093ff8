import type { ConsoleArea } from '../area.js';
import { BrowseView } from './browse-view.js';

/** The data: the organization's tree. */
export const nodeArea: ConsoleArea = {
  routes: [
    { pattern: '/', view: () => <BrowseView /> },
    { pattern: '/nodes/:nodeId', view: (params) => <BrowseView nodeId={params.nodeId} /> },
  ],
  nav: [{ label: 'Data', href: '/' }],
};
