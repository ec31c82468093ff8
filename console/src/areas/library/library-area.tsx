import type { ConsoleArea } from '../area.js';
import './library.css';
import { ModelView } from './model-view.js';
import { ModelsView } from './models-view.js';
import { TagsView } from './tags-view.js';

/** The organization's asset library: models with previews and tags, placed in twins. */
export const libraryArea: ConsoleArea = {
  routes: [
    { pattern: '/library', view: () => <ModelsView /> },
    { pattern: '/library/tags', view: () => <TagsView /> },
    // Keyed by the model: another model's screen starts afresh.
    {
      pattern: '/library/models/:modelId',
      view: (params) => <ModelView key={params.modelId} modelId={params.modelId as string} />,
    },
  ],
  nav: [{ label: 'Library', href: '/library', visible: (session) => session.hasScope('read:assetlibrary') }],
};
