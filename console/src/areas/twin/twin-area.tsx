import type { ConsoleArea } from '../area.js';
import { ComparisonView } from './comparison-view.js';
import { ComparisonsView } from './comparisons-view.js';
import { EmbedSessionsView } from './embed-sessions-view.js';
import { TwinView } from './twin-view.js';

/** A site's twin, its comparisons and its embed sessions; reached from the site's screen (TwinLinkPanel), so it has no navigation entry. */
export const twinArea: ConsoleArea = {
  routes: [
    { pattern: '/twins/:siteId', view: (params) => <TwinView key={params.siteId} siteId={params.siteId as string} /> },
    {
      pattern: '/twins/:siteId/comparisons',
      view: (params) => <ComparisonsView key={params.siteId} siteId={params.siteId as string} />,
    },
    {
      pattern: '/twins/:siteId/embed-sessions',
      view: (params) => <EmbedSessionsView key={params.siteId} siteId={params.siteId as string} />,
    },
    {
      pattern: '/twins/:siteId/comparisons/:comparisonId',
      view: (params) => (
        <ComparisonView key={params.comparisonId} siteId={params.siteId as string} comparisonId={params.comparisonId as string} />
      ),
    },
  ],
  nav: [],
};
