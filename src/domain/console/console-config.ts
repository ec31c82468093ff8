/**
 * What the console's page hands its script (docs/console.md): where to sign in and with which
 * client. Everything else (the organization, its region's API address, the person's scopes) the
 * console learns as any client does, from api-info after signing in.
 */
export interface ConsoleConfig {
  /** The authorization server, e.g. `https://host/auth`. */
  authUrl: string;
  clientId: string;
  /** The console's callback under the public address (registered relative: domain/oauth/console-client.ts). */
  redirectUri: string;
  scopes: string[];
}

/** Where the console lives under the public address; every path below it is the same page. */
export const CONSOLE_PATH = '/console';
/** Where its built files are served: `${CONSOLE_ASSETS_PATH}/${file}`. */
export const CONSOLE_ASSETS_PATH = '/console/assets';
/** The files scripts/build-console.mjs writes (dist/console/). */
export const CONSOLE_SCRIPT_FILE = 'console.js';
export const CONSOLE_STYLE_FILE = 'console.css';
