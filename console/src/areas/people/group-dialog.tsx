import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, TextField } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import type { Group } from './people-data.js';

/** A new name for a group (PATCH /v1/groups/{groupId}); names are unique in the organization, whatever their case. */
export function GroupDialog(props: { group: Group; onSaved: (group: Group) => void; onClose: () => void }) {
  const session = useSession();
  const { group } = props;
  const [name, setName] = useState(group.name);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  async function save(event: Event) {
    event.preventDefault();
    if (name === group.name) return props.onClose();
    setBusy(true);
    setError(undefined);
    try {
      props.onSaved(
        await ok(session.api.PATCH('/v1/groups/{groupId}', { params: { path: { groupId: group.id } }, body: { name } })),
      );
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }

  return (
    <Dialog title={`Rename ${group.name}`} onClose={props.onClose}>
      <form onSubmit={save}>
        <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
        <ErrorNotice error={error} />
        <div class="buttons">
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
