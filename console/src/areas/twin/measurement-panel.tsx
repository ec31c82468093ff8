import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ErrorNotice, TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import type { PagedList } from '../../ui/use-paged-list.js';
import { SelectField, TextAreaField } from './fields.js';
import { TWIN_OBJECT_KINDS } from './object-kinds.js';
import { DeleteObjectDialog, ObjectActions, ObjectName, usePanelDialog } from './object-panel.js';
import { changedFields, type Measurement, type MetadataType, type Selection, type TwinContext } from './twin-api.js';
import { RetypeRefusal, TypeChangeNote } from './unfitting.js';
import { formatMeasurementValue } from './viewer-link.js';

type OpenDialog = { kind: 'edit'; measurement: Measurement } | { kind: 'delete'; measurement: Measurement };

const KIND_WORDS: Record<Measurement['kind'], string> = {
  distance: 'Distance',
  height: 'Height',
  polyline: 'Polyline',
  area: 'Area',
  angle: 'Angle',
};

/**
 * The context's measurements (docs/design/measurements.md), each with its kind and the value the
 * platform computed, in its unit: selecting one moves the 3D view to it; editors rename, edit and
 * delete them. New ones are made with the toolbar's measuring tools in the view.
 */
export function MeasurementPanel(props: {
  context: TwinContext;
  measurements: PagedList<Measurement>;
  types: MetadataType[];
  selection: Selection | undefined;
  onSelect: (measurement: Measurement) => void;
  onChanged: (message: string) => void;
}) {
  const { context, measurements } = props;
  const { dialog, open, close, saved } = usePanelDialog<OpenDialog>(props.onChanged);

  return (
    <section class="twin-panel" aria-labelledby="measurement-heading">
      <div class="panel-heading">
        <h2 id="measurement-heading">Measurements</h2>
      </div>
      {!measurements.items ? (
        <LoadingOrError error={measurements.error} />
      ) : measurements.items.length === 0 ? (
        <p>No measurement yet. Choose a measuring tool above the 3D view and click points of the scan.</p>
      ) : (
        <ul class="object-list" aria-label="Measurements">
          {measurements.items.map((measurement) => {
            const selected = props.selection?.id === measurement.id;
            return (
              <li key={measurement.id} class={selected ? 'selected' : undefined}>
                <ObjectName
                  name={measurement.name}
                  color={measurement.color}
                  selected={selected}
                  onSelect={() => props.onSelect(measurement)}
                />
                <span class="object-facts measurement-value">
                  {KIND_WORDS[measurement.kind]}: {formatMeasurementValue(measurement.value, measurement.unit)}
                </span>
                {context.canWrite && (
                  <ObjectActions
                    name={measurement.name}
                    onEdit={() => open({ kind: 'edit', measurement })}
                    onDelete={() => open({ kind: 'delete', measurement })}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
      <ErrorNotice error={measurements.items ? measurements.error : undefined} />
      {measurements.items && <ShowMore list={measurements} what="measurements" />}
      {dialog?.kind === 'edit' && (
        <MeasurementDialog
          ctx={context.ctx}
          measurement={dialog.measurement}
          types={props.types}
          onSaved={(measurement) => saved(`${measurement.name} saved.`)}
          onClose={close}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteObjectDialog
          kind={TWIN_OBJECT_KINDS.measurement}
          context={context}
          object={dialog.measurement}
          onDeleted={saved}
          onClose={close}
        >
          <p>
            {dialog.measurement.name} and its metadata are removed from{' '}
            {context.draft ? `the draft ${context.draft.name}` : 'the live twin'}.
          </p>
        </DeleteObjectDialog>
      )}
    </section>
  );
}

/** Changes to a measurement's name, description and metadata type (only the fields changed are sent); its points are the view's. */
function MeasurementDialog(props: {
  ctx: string;
  measurement: Measurement;
  types: MetadataType[];
  onSaved: (measurement: Measurement) => void;
  onClose: () => void;
}) {
  const session = useSession();
  const { measurement } = props;
  const [name, setName] = useState(measurement.name);
  const [description, setDescription] = useState(measurement.description);
  const [typeId, setTypeId] = useState(measurement.metadataTypeId ?? '');
  const [dropUnfitting, setDropUnfitting] = useState(false);

  async function save() {
    const changes = changedFields(measurement, { name, description, metadataTypeId: typeId || null });
    if (Object.keys(changes).length === 0) return props.onClose();
    const saved = await ok(
      session.api.PATCH('/v1/twin/{contextId}/measurements/{measurementId}', {
        params: { path: { contextId: props.ctx, measurementId: measurement.id } },
        body: { ...changes, ...(dropUnfitting && changes.metadataTypeId ? { dropUnfitting } : {}) },
      }),
    );
    props.onSaved(saved);
  }

  return (
    <FormDialog title={`Edit ${measurement.name}`} submit="Save" onSubmit={save} onClose={props.onClose} notice={RetypeRefusal}>
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <TextAreaField label="Description" value={description} onValue={setDescription} maxLength={2000} />
      <SelectField
        label="Metadata type"
        value={typeId}
        onValue={setTypeId}
        none="None"
        options={props.types
          .filter((type) => type.appliesTo.includes('measurement'))
          .map((type) => ({ value: type.id, label: type.name }))}
      />
      <TypeChangeNote
        word="measurement"
        before={measurement.metadataTypeId}
        after={typeId}
        drop={dropUnfitting}
        onDrop={setDropUnfitting}
      />
    </FormDialog>
  );
}
