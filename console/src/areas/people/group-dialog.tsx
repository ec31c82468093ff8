import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import type { Group } from './people-data.js';

/** A new name for a group (PATCH /v1/groups/{groupId}); names are unique in the organization, whatever their case. */
export function GroupDialog(props: { group: Group; onSaved: (group: Group) => void; onClose: () => void }) {
  const session = useSession();
  const { group } = props;
  const [name, setName] = useState(group.name);

  async function save() {
    if (name === group.name) return props.onClose();
    props.onSaved(
      await ok(session.api.PATCH('/v1/groups/{groupId}', { params: { path: { groupId: group.id } }, body: { name } })),
    );
  }

  return (
    <FormDialog title={`Rename ${group.name}`} submit="Save" onSubmit={save} onClose={props.onClose}>
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
    </FormDialog>
  );
}
