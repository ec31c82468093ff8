import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { ColorField, SelectField, TextAreaField, VectorFields } from './fields.js';
import { changedFields, type MetadataType, type PointOfInterest, type Vector3, type Zone } from './twin-api.js';
import { RetypeRefusal, TypeChangeNote } from './unfitting.js';

/**
 * A new point of interest, or changes to one (only the fields changed are sent): its name,
 * description, position (typed, or the point last picked in the 3D view), colour, zone and
 * metadata type.
 */
export function PoiDialog(props: {
  ctx: string;
  poi?: PointOfInterest;
  start: Vector3;
  picked: Vector3 | undefined;
  zones: Zone[];
  types: MetadataType[];
  onSaved: (poi: PointOfInterest) => void;
  onClose: () => void;
}) {
  const session = useSession();
  const { poi } = props;
  const [name, setName] = useState(poi?.name ?? '');
  const [description, setDescription] = useState(poi?.description ?? '');
  const [position, setPosition] = useState<Vector3>(poi?.position ?? props.start);
  const [color, setColor] = useState<string | null>(poi?.color ?? null);
  const [zoneId, setZoneId] = useState(poi?.zoneId ?? '');
  const [typeId, setTypeId] = useState(poi?.metadataTypeId ?? '');
  const [dropUnfitting, setDropUnfitting] = useState(false);

  async function save() {
    const fields = { name, description, position, color, zoneId: zoneId || null, metadataTypeId: typeId || null };
    const path = { contextId: props.ctx };
    const changes = poi ? changedFields(poi, fields) : fields;
    if (Object.keys(changes).length === 0) return props.onClose();
    const saved = poi
      ? await ok(
          session.api.PATCH('/v1/twin/{contextId}/points-of-interest/{pointOfInterestId}', {
            params: { path: { ...path, pointOfInterestId: poi.id } },
            body: { ...changes, ...(dropUnfitting && changes.metadataTypeId ? { dropUnfitting } : {}) },
          }),
        )
      : await ok(session.api.POST('/v1/twin/{contextId}/points-of-interest', { params: { path }, body: fields }));
    props.onSaved(saved);
  }

  const picked = props.picked;
  return (
    <FormDialog
      title={poi ? `Edit ${poi.name}` : 'New point of interest'}
      submit={poi ? 'Save' : 'Create point of interest'}
      onSubmit={save}
      onClose={props.onClose}
      notice={RetypeRefusal}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <TextAreaField label="Description" value={description} onValue={setDescription} maxLength={10_000} />
      <VectorFields legend="Position (metres)" value={position} onValue={setPosition}>
        {picked && (
          <button type="button" class="quiet" onClick={() => setPosition(picked)}>
            Use the point picked in the 3D view
          </button>
        )}
      </VectorFields>
      <ColorField value={color} onValue={setColor} />
      <SelectField
        label="Zone"
        value={zoneId}
        onValue={setZoneId}
        none="In no zone"
        options={props.zones.map((zone) => ({ value: zone.id, label: zone.name }))}
      />
      <SelectField
        label="Metadata type"
        value={typeId}
        onValue={setTypeId}
        none="None"
        options={props.types
          .filter((type) => type.appliesTo.includes('pointOfInterest'))
          .map((type) => ({ value: type.id, label: type.name }))}
      />
      {poi && (
        <TypeChangeNote
          word="point of interest"
          before={poi.metadataTypeId}
          after={typeId}
          drop={dropUnfitting}
          onDrop={setDropUnfitting}
        />
      )}
    </FormDialog>
  );
}
