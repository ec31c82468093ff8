import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, TextField } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { type CreatableType, kindName, type Node } from './node-kinds.js';
import { RefusalNotice } from './refusals.js';

/** A new division, site (with its address) or folder under `parent`. */
export function CreateNodeDialog(props: {
  parent: Node;
  type: CreatableType;
  onCreated: (node: Node) => void;
  onClose: () => void;
}) {
  const session = useSession();
  const { parent, type } = props;
  const [name, setName] = useState('');
  const [address, setAddress] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const kind = kindName(type).toLowerCase();

  async function create(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const path = { parentId: parent.id };
    try {
      const created =
        type === 'site'
          ? await ok(session.api.POST('/v1/nodes/{parentId}/site', { params: { path }, body: { name, address } }))
          : type === 'division'
            ? await ok(session.api.POST('/v1/nodes/{parentId}/division', { params: { path }, body: { name } }))
            : await ok(session.api.POST('/v1/nodes/{parentId}/folder', { params: { path }, body: { name } }));
      props.onCreated(created as Node);
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }

  return (
    <Dialog title={`New ${kind} in ${parent.name}`} onClose={props.onClose}>
      <form onSubmit={create}>
        <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
        {type === 'site' && <TextField label="Address" value={address} onValue={setAddress} required maxLength={255} />}
        <RefusalNotice error={error} />
        <div class="buttons">
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={busy}>
            Create {kind}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
