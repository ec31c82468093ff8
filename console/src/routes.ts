import type { ConsoleArea, ConsoleRoute, NavEntry } from './areas/area.js';
import { libraryArea } from './areas/library/library-area.js';
import { metadataArea } from './areas/metadata/metadata-area.js';
import { nodeArea } from './areas/nodes/node-area.js';
import { peopleArea } from './areas/people/people-area.js';
import { twinArea } from './areas/twin/twin-area.js';
import { webhooksArea } from './areas/webhooks/webhooks-area.js';

/** Every area of the console, in the navigation's order. */
const AREAS: ConsoleArea[] = [nodeArea, twinArea, metadataArea, libraryArea, peopleArea, webhooksArea];

export const ROUTES: ConsoleRoute[] = AREAS.flatMap((area) => area.routes);
export const NAVIGATION: NavEntry[] = AREAS.flatMap((area) => area.nav);
