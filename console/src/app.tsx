import type { NavEntry } from './areas/area.js';
import type { ConsoleSession } from './auth/session.js';
import { matchPath, useLocation } from './router.js';
import { NAVIGATION, ROUTES } from './routes.js';
import { Link, PageTitle } from './ui/components.js';
import { SessionContext, useSession } from './ui/session-context.js';
import { useResource } from './ui/use-resource.js';

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
            {NAVIGATION.map((entry) => (
              <NavItem key={entry.href} entry={entry} path={path} />
            ))}
          </ul>
        </nav>
        <main id="main">{screen ?? <NotFound />}</main>
      </div>
    </SessionContext.Provider>
  );
}

/** An entry of the navigation, shown once its `visible` (answered at once, or later from the person's roles) says yes. */
function NavItem(props: { entry: NavEntry; path: string }) {
  const { entry, path } = props;
  const session = useSession();
  const answer = entry.visible?.(session) ?? true;
  // A plain yes or no counts at once (no entry blinks in); a promise is waited for.
  const later = useResource(async () => answer, [entry.href]);
  if ((typeof answer === 'boolean' ? answer : later.data) !== true) return null;
  return (
    <li>
      <Link href={entry.href} aria-current={isCurrent(entry.href, path) ? 'page' : undefined}>
        {entry.label}
      </Link>
    </li>
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
  return href === '/' ? path === '/' || path === '/places' || path.startsWith('/nodes/') : path.startsWith(href);
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
