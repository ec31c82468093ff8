/** The page's configuration (src/domain/console/console-config.ts on the server): where and how to sign in. */
export interface ConsoleConfig {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
}

export function readConfig(): ConsoleConfig {
  const element = document.getElementById('rdp-console-config');
  if (!element?.textContent) throw new Error('The console page has no configuration');
  return JSON.parse(element.textContent) as ConsoleConfig;
}

/** Every console address starts here; the rest of the path is the console's own route. */
export const BASE_PATH = '/console';
