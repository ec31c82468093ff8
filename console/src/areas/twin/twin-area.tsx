import type { ConsoleArea } from '../area.js';
import { TwinView } from './twin-view.js';

/** A site's twin; reached from the site's screen (TwinLinkPanel), so it has no navigation entry. */
export const twinArea: ConsoleArea = {
  routes: [{ pattern: '/twins/:siteId', view: (params) => <TwinView key={params.siteId} siteId={params.siteId as string} /> }],
  nav: [],
};
