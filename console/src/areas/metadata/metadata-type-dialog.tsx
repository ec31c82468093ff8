import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { TWIN_OBJECT_KINDS, type TwinObjectType } from '../twin/object-kinds.js';
import type { MetadataProperty, MetadataType } from '../twin/twin-api.js';
import { type DraftProperty, PropertyRows, propertyFromDraft, propertyToDraft } from './property-rows.js';

const KINDS = Object.keys(TWIN_OBJECT_KINDS) as TwinObjectType[];

/**
 * A new metadata type, or changes to one: its name, the kinds of object it applies to and its
 * properties (section, name, kind, unit or choices, required). A change sends the whole of each
 * field, as the API replaces them (docs/twins.md, "Metadata types").
 */
export function MetadataTypeDialog(props: { type?: MetadataType; onSaved: (type: MetadataType) => void; onClose: () => void }) {
  const session = useSession();
  const { type } = props;
  const [name, setName] = useState(type?.name ?? '');
  const [appliesTo, setAppliesTo] = useState<string[]>(type?.appliesTo ?? ['pointOfInterest']);
  const [properties, setProperties] = useState<DraftProperty[]>(type?.properties.map(propertyToDraft) ?? []);

  async function save() {
    const body = {
      name,
      appliesTo: KINDS.filter((kind) => appliesTo.includes(kind)),
      properties: properties.map(propertyFromDraft) as MetadataProperty[],
    };
    const saved = type
      ? await ok(
          session.api.PATCH('/v1/metadata-types/{metadataTypeId}', { params: { path: { metadataTypeId: type.id } }, body }),
        )
      : await ok(session.api.POST('/v1/metadata-types', { body }));
    props.onSaved(saved);
  }

  return (
    <FormDialog
      title={type ? `Edit ${type.name}` : 'New metadata type'}
      submit={type ? 'Save' : 'Create metadata type'}
      onSubmit={save}
      onClose={props.onClose}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <fieldset class="applies-to">
        <legend>Applies to</legend>
        {KINDS.map((kind) => (
          <label class="check" key={kind}>
            <input
              type="checkbox"
              checked={appliesTo.includes(kind)}
              onChange={(event) =>
                setAppliesTo((before) =>
                  (event.target as HTMLInputElement).checked ? [...before, kind] : before.filter((other) => other !== kind),
                )
              }
            />
            {TWIN_OBJECT_KINDS[kind].word}
          </label>
        ))}
      </fieldset>
      <PropertyRows properties={properties} onProperties={setProperties} />
    </FormDialog>
  );
}
