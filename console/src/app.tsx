import type { ConsoleSession } from './auth/session.js';
import { matchPath, useLocation } from './router.js';
import { NAVIGATION, ROUTES } from './routes.js';
import { Link, PageTitle } from './ui/components.js';
import { SessionContext } from './ui/session-context.js';

/** The signed-in console: who and where, the navigation, and the current screen. */
export function App(props: { session: ConsoleSession; onSignOut: () => void }) {
  const { session } = props;
  const { path } = useLocation();
  const screen = findScreen(path);
  return (
    <SessionContext.Provider value={session}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top-bar">
        <Link href="/" class="brand">
          Reality Data Platform
        </Link>
        <span class="organization" title="Your organization">
          {session.info.organization.name}
        </span>
        <span class="person">{session.info.user.email}</span>
        <button type="button" class="quiet" onClick={props.onSignOut}>
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav aria-label="Console">
          <ul>
            {NAVIGATION.filter((entry) => entry.visible?.(session) ?? true).map((entry) => (
              <li key={entry.href}>
                <Link href={entry.href} aria-current={isCurrent(entry.href, path) ? 'page' : undefined}>
                  {entry.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">{screen ?? <NotFound />}</main>
      </div>
    </SessionContext.Provider>
  );
}

function findScreen(path: string) {
  for (const route of ROUTES) {
    const params = matchPath(route.pattern, path);
    if (params) return route.view(params);
  }
  return undefined;
}

function isCurrent(href: string, path: string): boolean {
  return href === '/' ? path === '/' || path.startsWith('/nodes/') : path.startsWith(href);
}

function NotFound() {
  return (
    <section>
      <PageTitle>Not found</PageTitle>
      <p>
        The console has no such page. <Link href="/">Back to your data</Link>.
      </p>
    </section>
  );
}
