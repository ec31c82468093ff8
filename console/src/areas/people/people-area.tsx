import type { ConsoleArea } from '../area.js';
import { AuditView } from './audit-view.js';
import { GroupView } from './group-view.js';
import { GroupsView } from './groups-view.js';
import { administersPeople } from './people-access.js';
import { PeopleView } from './people-view.js';
import { RolesView } from './roles-view.js';
import { ScimTokensView } from './scim-tokens-view.js';
import './people.css';

/** People for administrators: the organization's people and invitations, its groups, roles and SCIM tokens, the audit trail. */
export const peopleArea: ConsoleArea = {
  routes: [
    { pattern: '/people', view: () => <PeopleView /> },
    { pattern: '/people/groups', view: () => <GroupsView /> },
    {
      pattern: '/people/groups/:groupId',
      view: (params) => <GroupView key={params.groupId} groupId={params.groupId as string} />,
    },
    { pattern: '/people/roles', view: () => <RolesView /> },
    { pattern: '/people/scim-tokens', view: () => <ScimTokensView /> },
    { pattern: '/people/audit', view: () => <AuditView /> },
  ],
  nav: [{ label: 'People', href: '/people', visible: administersPeople }],
};
