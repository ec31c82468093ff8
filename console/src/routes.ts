import type { ConsoleArea, ConsoleRoute, NavEntry } from './areas/area.js';
import { libraryArea } from './areas/library/library-area.js';
import { nodeArea } from './areas/nodes/node-area.js';

/** Every area of the console, in the navigation's order. */
const AREAS: ConsoleArea[] = [nodeArea, libraryArea];

export const ROUTES: ConsoleRoute[] = AREAS.flatMap((area) => area.routes);
export const NAVIGATION: NavEntry[] = AREAS.flatMap((area) => area.nav);
