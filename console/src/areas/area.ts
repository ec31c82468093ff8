import type { JSX } from 'preact';
import type { ConsoleSession } from '../auth/session.js';

/** One screen of the console: its path under /console (`/nodes/:nodeId`) and what it shows. */
export interface ConsoleRoute {
  pattern: string;
  view: (params: Record<string, string>) => JSX.Element;
}

/**
 * An entry of the console's navigation; `visible` hides what the person's scopes do not allow,
 * or what their roles do not (a promise: the entry appears once it says yes).
 */
export interface NavEntry {
  label: string;
  href: string;
  visible?: (session: ConsoleSession) => boolean | Promise<boolean>;
}

/** What each area of the console (areas/<area>/) contributes; routes.ts gathers them. */
export interface ConsoleArea {
  routes: ConsoleRoute[];
  nav: NavEntry[];
}
