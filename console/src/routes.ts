import type { ConsoleArea, ConsoleRoute, NavEntry } from './areas/area.js';
import { nodeArea } from './areas/nodes/node-area.js';
import { peopleArea } from './areas/people/people-area.js';

/** Every area of the console, in the navigation's order. */
const AREAS: ConsoleArea[] = [nodeArea, peopleArea];

export const ROUTES: ConsoleRoute[] = AREAS.flatMap((area) => area.routes);
export const NAVIGATION: NavEntry[] = AREAS.flatMap((area) => area.nav);
