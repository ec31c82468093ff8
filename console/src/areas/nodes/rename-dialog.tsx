import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, TextField } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import type { Node } from './node-kinds.js';
import { RefusalNotice } from './refusals.js';

/** A new name for the node (PATCH /v1/nodes/{nodeId}); a site's address is changed here too. */
export function RenameDialog(props: { node: Node; onRenamed: (node: Node) => void; onClose: () => void }) {
  const session = useSession();
  const { node } = props;
  const [name, setName] = useState(node.name);
  const [address, setAddress] = useState(node.address ?? '');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const isSite = node.type === 'site';

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const changes = {
      ...(name !== node.name ? { name } : {}),
      ...(isSite && address !== (node.address ?? '') ? { address } : {}),
    };
    if (Object.keys(changes).length === 0) return props.onClose();
    try {
      const renamed = await ok(session.api.PATCH('/v1/nodes/{nodeId}', { params: { path: { nodeId: node.id } }, body: changes }));
      props.onRenamed(renamed as Node);
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }

  return (
    <Dialog title={isSite ? `Rename or re-address ${node.name}` : `Rename ${node.name}`} onClose={props.onClose}>
      <form onSubmit={save}>
        <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
        {isSite && <TextField label="Address" value={address} onValue={setAddress} required maxLength={255} />}
        <RefusalNotice error={error} />
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
