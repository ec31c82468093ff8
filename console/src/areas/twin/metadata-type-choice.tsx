import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { SelectField } from './fields.js';
import { TWIN_OBJECT_KINDS } from './object-kinds.js';
import type { MetadataType, Selection, TwinContext } from './twin-api.js';
import { UnfittingList, unfittingProperties } from './unfitting.js';

/**
 * Giving an object without a metadata type its first one, from the metadata panel. The platform
 * keeps the free metadata that fits the type and refuses, naming them, the properties that do
 * not (docs/twins.md, "Free metadata"); the person may then drop those and give the type anyway.
 */
export function MetadataTypeChoice(props: {
  context: TwinContext;
  selection: Selection;
  types: MetadataType[];
  onRetyped: (type: MetadataType, dropped: boolean) => void;
}) {
  const session = useSession();
  const [typeId, setTypeId] = useState('');
  const { busy, error, run } = useSubmission();
  const kind = TWIN_OBJECT_KINDS[props.selection.kind];
  const types = props.types.filter((type) => type.appliesTo.includes(props.selection.kind));
  const type = types.find((candidate) => candidate.id === typeId);
  const unfitting = unfittingProperties(error);

  function give(dropUnfitting: boolean) {
    if (!type) return;
    void run(async () => {
      await kind.retype(session, props.context.ctx, props.selection.id, { metadataTypeId: type.id, dropUnfitting });
      props.onRetyped(type, dropUnfitting);
    });
  }

  if (types.length === 0) return null;
  return (
    <form
      class="inline-form metadata-type-choice"
      onSubmit={(event) => {
        event.preventDefault();
        give(false);
      }}
    >
      <SelectField
        label="Metadata type"
        value={typeId}
        onValue={setTypeId}
        none="None (free metadata)"
        options={types.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
      />
      <button type="submit" disabled={busy || !type}>
        Give this type
      </button>
      {unfitting && type ? (
        <div class="notice error" role="alert">
          <UnfittingList unfitting={unfitting} typeName={type.name} />
          <button type="button" class="danger" disabled={busy} onClick={() => give(true)}>
            Drop what does not fit and give {type.name}
          </button>
        </div>
      ) : (
        <ErrorNotice error={error} />
      )}
    </form>
  );
}
