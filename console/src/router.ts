import { useEffect, useState } from 'preact/hooks';
import { BASE_PATH } from './config.js';

/**
 * The console's addresses are real paths under /console (the server answers the same page for
 * each), moved between with the History API: a link can be opened in a new tab or reloaded.
 */
const listeners = new Set<() => void>();

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const target = path.startsWith(BASE_PATH) ? path : `${BASE_PATH}${path}`;
  if (options.replace) history.replaceState(null, '', target);
  else history.pushState(null, '', target);
  for (const listener of listeners) listener();
}

addEventListener('popstate', () => {
  for (const listener of listeners) listener();
});

/** The current console path (without /console) and query, re-rendering on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  const path = location.pathname.startsWith(BASE_PATH) ? location.pathname.slice(BASE_PATH.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search) };
}

/** `/nodes/:nodeId` against `/nodes/abc`: the parameters, or undefined when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < want.length; index++) {
    const part = want[index] as string;
    const value = have[index] as string;
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

/** A link within the console: a plain anchor (new tab works) whose ordinary click navigates in place. */
export function onLinkClick(event: MouseEvent, path: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(path);
}
