import type { ComponentChildren } from 'preact';
import { useLocation } from '../../router.js';
import { Link, PageTitle } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { administersPeople } from './people-access.js';

const SECTIONS = [
  { href: '/people', label: 'People and invitations' },
  { href: '/people/groups', label: 'Groups' },
  { href: '/people/roles', label: 'Roles' },
  { href: '/people/scim-tokens', label: 'SCIM tokens' },
  { href: '/people/audit', label: 'Audit trail' },
];

/**
 * The frame of the People screens: the title, the area's own sections, and the screen only for
 * people who administer the organization's people (someone who opened the address anyway is told so).
 */
export function PeopleFrame(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const session = useSession();
  const { path } = useLocation();
  const allowed = useResource(() => administersPeople(session), []);
  return (
    <section class="people">
      <PageTitle actions={allowed.data ? props.actions : undefined}>{props.title}</PageTitle>
      {allowed.data && (
        <nav aria-label="People sections" class="people-sections">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.href}>
                <Link
                  href={section.href}
                  aria-current={
                    (section.href === '/people' ? path === section.href : path.startsWith(section.href)) ? 'page' : undefined
                  }
                >
                  {section.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {allowed.data === undefined ? (
        <LoadingOrError error={allowed.error} />
      ) : allowed.data ? (
        props.children
      ) : (
        <p class="notice">
          Only administrators of {session.info.organization.name} manage its people, groups, roles, SCIM tokens and audit trail.
        </p>
      )}
    </section>
  );
}
