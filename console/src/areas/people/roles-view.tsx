import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { forgetRoles, type Role } from './people-data.js';
import { PeopleFrame } from './people-frame.js';
import { PeopleRefusal } from './people-refusals.js';
import { RoleDialog } from './role-dialog.js';

/**
 * The organization's roles (GET /v1/roles): the platform's administrative roles, which cannot be
 * changed, then the organization's custom roles, to create, change and delete.
 */
export function RolesView() {
  const session = useSession();
  const roles = useResource(() => ok(session.api.GET('/v1/roles')), []);
  const [editing, setEditing] = useState<Role | 'new'>();
  const [deleting, setDeleting] = useState<Role>();
  const [outcome, setOutcome] = useState<{ message: string }>();

  function changed(message: string) {
    // The grant and invite dialogs read the roles once per session: they must see this change.
    forgetRoles(session);
    setOutcome({ message });
    roles.reload();
  }

  return (
    <PeopleFrame
      title="Roles"
      actions={
        <button type="button" onClick={() => setEditing('new')}>
          New role
        </button>
      }
    >
      <Outcome outcome={outcome} />
      <p>A role is a set of permissions. Given to a person or a group on a place, it applies there and to everything inside.</p>
      {!roles.data ? (
        <LoadingOrError error={roles.error} />
      ) : (
        <RolesTable roles={roles.data} onEdit={setEditing} onDelete={setDeleting} />
      )}
      {editing && (
        <RoleDialog
          role={editing === 'new' ? undefined : editing}
          onSaved={(role) => {
            setEditing(undefined);
            changed(editing === 'new' ? `Role ${role.name} created.` : `Role ${role.name} saved.`);
          }}
          onClose={() => setEditing(undefined)}
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete the role ${deleting.name}?`}
          confirm="Delete role"
          danger
          notice={PeopleRefusal}
          onClose={() => setDeleting(undefined)}
          action={async () => {
            await ok(session.api.DELETE('/v1/roles/{roleId}', { params: { path: { roleId: deleting.id } } }));
            setDeleting(undefined);
            changed(`Role ${deleting.name} deleted.`);
          }}
        >
          <p>A role still given to someone, or offered by a pending invitation, cannot be deleted.</p>
        </ConfirmDialog>
      )}
    </PeopleFrame>
  );
}

function RolesTable(props: { roles: Role[]; onEdit: (role: Role) => void; onDelete: (role: Role) => void }) {
  return (
    <table class="roles-table">
      <caption class="visually-hidden">Roles of the organization</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Kind</th>
          <th scope="col">Permissions</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.roles.map((role) => (
          <tr key={role.id}>
            <td>{role.name}</td>
            <td>{role.kind === 'administrative' ? 'Built in (organization only)' : 'Custom'}</td>
            <td>{role.permissions.length > 0 ? role.permissions.join(', ') : 'none'}</td>
            {role.kind === 'administrative' ? (
              <td class="muted">Cannot be changed</td>
            ) : (
              <td class="row-actions">
                <button
                  type="button"
                  class="quiet"
                  aria-label={`Change the role ${role.name}`}
                  onClick={() => props.onEdit(role)}
                >
                  Change
                </button>
                <button
                  type="button"
                  class="quiet danger-text"
                  aria-label={`Delete the role ${role.name}`}
                  onClick={() => props.onDelete(role)}
                >
                  Delete
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
