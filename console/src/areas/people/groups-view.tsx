import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { ErrorNotice, Link, TextField } from '../../ui/components.js';
import { takeFlash } from '../../ui/flash.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { NameOf } from './name-of.js';
import type { Group } from './people-data.js';
import { PeopleFrame } from './people-frame.js';

/** The organization's groups by name (GET /v1/groups), each leading to its members; a new one. */
export function GroupsView() {
  const session = useSession();
  const groups = usePagedList((page) => session.api.GET('/v1/groups', { params: { query: page } }), []);
  const [creating, setCreating] = useState(false);
  // A group deleted on its own screen says so here.
  const [outcome, setOutcome] = useState<{ message: string } | undefined>(() => {
    const message = takeFlash();
    return message ? { message } : undefined;
  });
  return (
    <PeopleFrame
      title="Groups"
      actions={
        <button type="button" onClick={() => setCreating(true)}>
          New group
        </button>
      }
    >
      <Outcome outcome={outcome} />
      <p>A role given to a group on a place reaches every member of the group.</p>
      {!groups.items ? (
        <LoadingOrError error={groups.error} />
      ) : groups.items.length === 0 ? (
        <p>There is no group yet.</p>
      ) : (
        <GroupsTable groups={groups.items} />
      )}
      {groups.items && <ErrorNotice error={groups.error} />}
      <ShowMore list={groups} what="groups" />
      {creating && (
        <CreateGroupDialog
          onCreated={(group) => {
            setCreating(false);
            setOutcome({ message: `Group ${group.name} created.` });
            groups.reload();
          }}
          onClose={() => setCreating(false)}
        />
      )}
    </PeopleFrame>
  );
}

function GroupsTable(props: { groups: Group[] }) {
  return (
    <table>
      <caption class="visually-hidden">Groups</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Belongs to</th>
          <th scope="col">Members</th>
          <th scope="col">Managed by</th>
        </tr>
      </thead>
      <tbody>
        {props.groups.map((group) => (
          <tr key={group.id}>
            <td>
              <Link href={`/people/groups/${group.id}`}>{group.name}</Link>
            </td>
            <td>{group.divisionId ? <NameOf kind="node" id={group.divisionId} /> : 'The whole organization'}</td>
            <td>{group.memberCount}</td>
            <td>{managedBy(group)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Who changes the group's members: the identity provider (SCIM), a SAML link, or administrators here. */
export function managedBy(group: Group): string {
  if (group.scimManaged) return 'Your identity provider (SCIM)';
  if (group.samlLinked) return 'Single sign-on (SAML link)';
  return 'Administrators here';
}

/** A new group: of the whole organization, or owned by one division (usable inside it only). */
function CreateGroupDialog(props: { onCreated: (group: Group) => void; onClose: () => void }) {
  const session = useSession();
  const organization = session.info.organization;
  const divisions = useResource(
    () =>
      ok(session.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId: organization.id }, query: { limit: 500 } } })),
    [],
  );
  const [name, setName] = useState('');
  const [owner, setOwner] = useState('');

  async function create() {
    props.onCreated(await ok(session.api.POST('/v1/groups', { body: owner ? { name, divisionId: owner } : { name } })));
  }

  return (
    <FormDialog title="New group" submit="Create group" failure={divisions.error} onSubmit={create} onClose={props.onClose}>
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <ChoiceField
        label="Belongs to"
        value={owner}
        onValue={setOwner}
        options={[
          ['', `The whole organization (${organization.name})`],
          ...(divisions.data ?? [])
            .filter((node) => node.type === 'division')
            .map((division): [string, string] => [division.id, `Division ${division.name}`]),
        ]}
      />
      <p class="hint">A division's group can be given roles inside that division only.</p>
    </FormDialog>
  );
}
