import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { type CreatableType, kindName, type Node } from './node-kinds.js';

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
  const kind = kindName(type).toLowerCase();

  async function create() {
    const path = { parentId: parent.id };
    const created =
      type === 'site'
        ? await ok(session.api.POST('/v1/nodes/{parentId}/site', { params: { path }, body: { name, address } }))
        : type === 'division'
          ? await ok(session.api.POST('/v1/nodes/{parentId}/division', { params: { path }, body: { name } }))
          : await ok(session.api.POST('/v1/nodes/{parentId}/folder', { params: { path }, body: { name } }));
    props.onCreated(created as Node);
  }

  return (
    <FormDialog
      title={`New ${kind} in ${parent.name}`}
      submit={`Create ${kind}`}
      notice={RefusalNotice}
      onSubmit={create}
      onClose={props.onClose}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      {type === 'site' && <TextField label="Address" value={address} onValue={setAddress} required maxLength={255} />}
    </FormDialog>
  );
}
