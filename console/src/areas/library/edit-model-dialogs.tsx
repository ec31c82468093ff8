import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Loading, TextField } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { LibraryRefusal } from './library-refusals.js';
import type { LibraryModel, LibraryTag } from './library-types.js';
import { DescriptionField, TagChoice } from './model-fields.js';

type Changes = { name?: string; description?: string; tagIds?: string[] };

/** PATCH /v1/asset-library/models/{modelId} from a dialog's form, the refusal shown in it. */
function useModelPatch(model: LibraryModel, onSaved: (model: LibraryModel) => void) {
  const session = useSession();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function save(changes: Changes) {
    setBusy(true);
    setError(undefined);
    try {
      onSaved(
        await ok(
          session.api.PATCH('/v1/asset-library/models/{modelId}', { params: { path: { modelId: model.id } }, body: changes }),
        ),
      );
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }
  return { save, error, busy };
}

/** A model's new name and description. */
export function EditModelDialog(props: { model: LibraryModel; onSaved: () => void; onClose: () => void }) {
  const { model } = props;
  const [name, setName] = useState(model.name);
  const [description, setDescription] = useState(model.description);
  const patch = useModelPatch(model, props.onSaved);
  return (
    <Dialog title={`Edit ${model.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const changes: Changes = {
            ...(name !== model.name ? { name } : {}),
            ...(description !== model.description ? { description } : {}),
          };
          if (Object.keys(changes).length === 0) props.onClose();
          else void patch.save(changes);
        }}
      >
        <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
        <DescriptionField value={description} onValue={setDescription} />
        <LibraryRefusal error={patch.error} />
        <div class="buttons">
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={patch.busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
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
  const patch = useModelPatch(model, props.onSaved);
  return (
    <Dialog title={`Tags of ${model.name}`} onClose={props.onClose}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void patch.save({ tagIds: chosen });
        }}
      >
        {tags.data ? <TagChoice tags={tags.data} chosen={chosen} onChosen={setChosen} /> : <Loading />}
        <ErrorNotice error={tags.error} />
        <LibraryRefusal error={patch.error} />
        <div class="buttons">
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={patch.busy || !tags.data}>
            Save tags
          </button>
        </div>
      </form>
    </Dialog>
  );
}
