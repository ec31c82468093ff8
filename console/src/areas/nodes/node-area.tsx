import type { ConsoleArea } from '../area.js';
import { BrowseView } from './browse-view.js';
import { PlacesView } from './places.js';
import { SearchView } from './search-view.js';
import { TrashView } from './trash-view.js';

/** The data: the organization's tree, the person's places in it, its search and its trash. */
export const nodeArea: ConsoleArea = {
  routes: [
    { pattern: '/', view: () => <BrowseView key="organization" /> },
    // Keyed by the node: another node's screen starts afresh (no dialog or notice carried over).
    { pattern: '/nodes/:nodeId', view: (params) => <BrowseView key={params.nodeId} nodeId={params.nodeId} /> },
    { pattern: '/places', view: () => <PlacesView /> },
    { pattern: '/search', view: () => <SearchView /> },
    { pattern: '/trash', view: () => <TrashView /> },
  ],
  nav: [
    { label: 'Data', href: '/' },
    { label: 'Trash', href: '/trash', visible: (session) => session.hasScope('read:hierarchy') },
  ],
};
