import { ok } from '@reality-data-platform/sdk/browser';
import { useId, useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { LibraryRefusal } from './library-refusals.js';
import type { LibraryTag } from './library-types.js';

/** A new tag, or a tag's new name and colour (`tag` given). */
export function TagDialog(props: { tag?: LibraryTag; onSaved: (tag: LibraryTag) => void; onClose: () => void }) {
  const session = useSession();
  const { tag } = props;
  const colourId = useId();
  const [name, setName] = useState(tag?.name ?? '');
  const [coloured, setColoured] = useState(Boolean(tag?.color));
  const [colour, setColour] = useState(tag?.color ?? '#0b5cad');

  async function save() {
    const color = coloured ? colour : null;
    const saved = tag
      ? await ok(
          session.api.PATCH('/v1/asset-library/tags/{tagId}', {
            params: { path: { tagId: tag.id } },
            body: { ...(name !== tag.name ? { name } : {}), color },
          }),
        )
      : await ok(session.api.POST('/v1/asset-library/tags', { body: { name, color } }));
    props.onSaved(saved);
  }

  return (
    <FormDialog
      title={tag ? `Edit the tag ${tag.name}` : 'New tag'}
      submit={tag ? 'Save' : 'Create tag'}
      notice={LibraryRefusal}
      onSubmit={save}
      onClose={props.onClose}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={64} autoFocus />
      <label class="choice">
        <input type="checkbox" checked={coloured} onChange={(event) => setColoured((event.target as HTMLInputElement).checked)} />
        With a colour
      </label>
      {coloured && (
        <div class="field">
          <label for={colourId}>Colour</label>
          <input
            id={colourId}
            type="color"
            value={colour}
            onInput={(event) => setColour((event.target as HTMLInputElement).value)}
          />
        </div>
      )}
    </FormDialog>
  );
}
