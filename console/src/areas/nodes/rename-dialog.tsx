import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import type { Node } from './node-kinds.js';

/** A new name for the node (PATCH /v1/nodes/{nodeId}); a site's address is changed here too. */
export function RenameDialog(props: { node: Node; onRenamed: (node: Node) => void; onClose: () => void }) {
  const session = useSession();
  const { node } = props;
  const [name, setName] = useState(node.name);
  const [address, setAddress] = useState(node.address ?? '');
  const isSite = node.type === 'site';

  async function save() {
    const changes = {
      ...(name !== node.name ? { name } : {}),
      ...(isSite && address !== (node.address ?? '') ? { address } : {}),
    };
    if (Object.keys(changes).length === 0) return props.onClose();
    const renamed = await ok(session.api.PATCH('/v1/nodes/{nodeId}', { params: { path: { nodeId: node.id } }, body: changes }));
    props.onRenamed(renamed as Node);
  }

  return (
    <FormDialog
      title={isSite ? `Rename or re-address ${node.name}` : `Rename ${node.name}`}
      submit="Save"
      notice={RefusalNotice}
      onSubmit={save}
      onClose={props.onClose}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      {isSite && <TextField label="Address" value={address} onValue={setAddress} required maxLength={255} />}
    </FormDialog>
  );
}
