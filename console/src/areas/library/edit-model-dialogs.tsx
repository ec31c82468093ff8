import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import type { ConsoleSession } from '../../auth/session.js';
import { ErrorNotice, Loading, TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { LibraryRefusal } from './library-refusals.js';
import type { LibraryModel, LibraryTag } from './library-types.js';
import { DescriptionField, TagChoice } from './model-fields.js';

type Changes = { name?: string; description?: string; tagIds?: string[] };

/** PATCH /v1/asset-library/models/{modelId}. */
function patchModel(session: ConsoleSession, model: LibraryModel, changes: Changes) {
  return ok(session.api.PATCH('/v1/asset-library/models/{modelId}', { params: { path: { modelId: model.id } }, body: changes }));
}

/** A model's new name and description. */
export function EditModelDialog(props: { model: LibraryModel; onSaved: () => void; onClose: () => void }) {
  const session = useSession();
  const { model } = props;
  const [name, setName] = useState(model.name);
  const [description, setDescription] = useState(model.description);
  async function save() {
    const changes: Changes = {
      ...(name !== model.name ? { name } : {}),
      ...(description !== model.description ? { description } : {}),
    };
    if (Object.keys(changes).length === 0) return props.onClose();
    await patchModel(session, model, changes);
    props.onSaved();
  }
  return (
    <FormDialog title={`Edit ${model.name}`} submit="Save" notice={LibraryRefusal} onSubmit={save} onClose={props.onClose}>
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <DescriptionField value={description} onValue={setDescription} />
    </FormDialog>
  );
}

/** The tags a model carries, chosen among the organization's. */
export function ModelTagsDialog(props: { model: LibraryModel; onSaved: () => void; onClose: () => void }) {
  const session = useSession();
  const { model } = props;
  const tags = useResource(
    () => ok(session.api.GET('/v1/asset-library/tags', { params: { query: { limit: 500 } } })) as Promise<LibraryTag[]>,
    [],
  );
  const [chosen, setChosen] = useState((model.tags ?? []).map((tag) => tag.id));
  async function save() {
    await patchModel(session, model, { tagIds: chosen });
    props.onSaved();
  }
  return (
    <FormDialog
      title={`Tags of ${model.name}`}
      submit="Save tags"
      disabled={!tags.data}
      notice={LibraryRefusal}
      onSubmit={save}
      onClose={props.onClose}
    >
      {tags.data ? <TagChoice tags={tags.data} chosen={chosen} onChosen={setChosen} /> : <Loading />}
      <ErrorNotice error={tags.error} />
    </FormDialog>
  );
}
