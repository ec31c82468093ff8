import type { ConsoleArea } from '../area.js';
import { managesMetadataTypes } from './metadata-rights.js';
import { MetadataTypesView } from './metadata-types-view.js';

/** The organization's metadata types (docs/twins.md, "Metadata types"), for those who may manage them. */
export const metadataArea: ConsoleArea = {
  routes: [{ pattern: '/metadata-types', view: () => <MetadataTypesView /> }],
  nav: [{ label: 'Metadata types', href: '/metadata-types', visible: managesMetadataTypes }],
};
