import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import type { Role } from './people-data.js';
import { PeopleRefusal } from './people-refusals.js';

/**
 * The permissions a custom role may give, in the platform's order (docs/people.md, "Roles"),
 * with what each lets a person do on the places where they hold the role.
 */
export const PERMISSIONS: [permission: string, words: string][] = [
  ['read', 'Read: see the places and items and their details'],
  ['download', 'Download: fetch the files'],
  ['edit', 'Edit: create sites and folders, rename, move, change metadata'],
  ['upload', 'Upload: bring in new data'],
  ['process', 'Process: start processing and comparisons'],
  ['manage', 'Manage: give roles here, create divisions'],
  ['delete', 'Delete: move items to the trash and delete them'],
];

/** A new custom role, or a change to one: its name and the permissions it gives (POST or PATCH /v1/roles). */
export function RoleDialog(props: { role?: Role; onSaved: (role: Role) => void; onClose: () => void }) {
  const session = useSession();
  const { role } = props;
  const [name, setName] = useState(role?.name ?? '');
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(role?.permissions ?? ['read']));

  function toggle(permission: string, on: boolean) {
    const next = new Set(chosen);
    if (on) next.add(permission);
    else next.delete(permission);
    setChosen(next);
  }

  async function save() {
    // Sent in the platform's order, which is how it stores them.
    const permissions = PERMISSIONS.map(([permission]) => permission).filter((permission) => chosen.has(permission));
    const body = { name: name.trim(), permissions };
    props.onSaved(
      await ok(
        role
          ? session.api.PATCH('/v1/roles/{roleId}', { params: { path: { roleId: role.id } }, body })
          : session.api.POST('/v1/roles', { body }),
      ),
    );
  }

  return (
    <FormDialog
      title={role ? `Change the role ${role.name}` : 'New role'}
      submit={role ? 'Save' : 'Create role'}
      notice={PeopleRefusal}
      onSubmit={save}
      onClose={props.onClose}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <fieldset class="choices permissions">
        <legend>Permissions</legend>
        {PERMISSIONS.map(([permission, words]) => (
          <label class="check" key={permission}>
            <input
              type="checkbox"
              name="permission"
              value={permission}
              checked={chosen.has(permission)}
              onChange={(event) => toggle(permission, (event.target as HTMLInputElement).checked)}
            />
            {words}
          </label>
        ))}
      </fieldset>
      <p class="hint">
        A role given on a place reaches everything inside it.
        {role ? ' A change applies at once wherever the role is given.' : ''}
      </p>
    </FormDialog>
  );
}
