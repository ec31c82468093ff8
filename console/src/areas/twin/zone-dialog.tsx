import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { ColorField, SelectField, TextAreaField, VectorFields } from './fields.js';
import { changedFields, type MetadataType, NO_ROTATION, type Vector3, type Zone } from './twin-api.js';
import { RetypeRefusal, TypeChangeNote } from './unfitting.js';

/**
 * A new zone (under a parent zone or at the top), or changes to one. Its volume is one box along
 * the twin's axes, given by its centre and size; a zone drawn otherwise through the API (several
 * boxes, or turned) keeps its volume here, which the dialog says.
 */
export function ZoneDialog(props: {
  ctx: string;
  zone?: Zone;
  parentId?: string;
  start: Vector3;
  zones: Zone[];
  types: MetadataType[];
  onSaved: (zone: Zone) => void;
  onClose: () => void;
}) {
  const session = useSession();
  const { zone } = props;
  const box = zone?.volume.boxes[0];
  const simpleBox = !zone || (zone.volume.boxes.length === 1 && isUnrotated(box?.rotation));
  const [name, setName] = useState(zone?.name ?? '');
  const [description, setDescription] = useState(zone?.description ?? '');
  const [center, setCenter] = useState<Vector3>(box?.center ?? props.start);
  const [size, setSize] = useState<Vector3>(box?.size ?? { x: 10, y: 10, z: 5 });
  const [color, setColor] = useState<string | null>(zone?.color ?? null);
  const [parentId, setParentId] = useState(zone?.parentZoneId ?? props.parentId ?? '');
  const [typeId, setTypeId] = useState(zone?.metadataTypeId ?? '');
  const [dropUnfitting, setDropUnfitting] = useState(false);
  // A zone cannot go under itself or one of its own (the platform refuses it too: CircularityFound).
  const below = zone ? descendantsOf(zone.id, props.zones) : new Set<string>();
  const parents = props.zones.filter((candidate) => candidate.id !== zone?.id && !below.has(candidate.id));

  async function save() {
    const fields = {
      name,
      description,
      color,
      parentZoneId: parentId || null,
      metadataTypeId: typeId || null,
      ...(simpleBox ? { volume: { boxes: [{ center, size, rotation: box?.rotation ?? NO_ROTATION }] } } : {}),
    };
    const path = { contextId: props.ctx };
    const changes = zone ? changedFields(zone, fields) : fields;
    if (Object.keys(changes).length === 0) return props.onClose();
    const saved = zone
      ? await ok(
          session.api.PATCH('/v1/twin/{contextId}/zones/{zoneId}', {
            params: { path: { ...path, zoneId: zone.id } },
            body: { ...changes, ...(dropUnfitting && changes.metadataTypeId ? { dropUnfitting } : {}) },
          }),
        )
      : await ok(
          session.api.POST('/v1/twin/{contextId}/zones', {
            params: { path },
            body: { ...fields, volume: { boxes: [{ center, size, rotation: NO_ROTATION }] } },
          }),
        );
    props.onSaved(saved);
  }

  return (
    <FormDialog
      title={zone ? `Edit ${zone.name}` : 'New zone'}
      submit={zone ? 'Save' : 'Create zone'}
      onSubmit={save}
      onClose={props.onClose}
      notice={RetypeRefusal}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <TextAreaField label="Description" value={description} onValue={setDescription} maxLength={10_000} />
      <SelectField
        label="Inside zone"
        value={parentId}
        onValue={setParentId}
        none="At the top (in no zone)"
        options={parents.map((candidate) => ({ value: candidate.id, label: candidate.name }))}
      />
      {simpleBox ? (
        <>
          <VectorFields legend="Centre (metres)" value={center} onValue={setCenter} />
          <VectorFields legend="Size (metres)" value={size} onValue={setSize} min={0.001} />
        </>
      ) : (
        <p class="notice">
          This zone's volume is {zone?.volume.boxes.length} boxes or a turned box, drawn through the API: it is kept as it is.
        </p>
      )}
      <ColorField value={color} onValue={setColor} />
      <SelectField
        label="Metadata type"
        value={typeId}
        onValue={setTypeId}
        none="None"
        options={props.types
          .filter((type) => type.appliesTo.includes('zone'))
          .map((type) => ({ value: type.id, label: type.name }))}
      />
      {zone && (
        <TypeChangeNote word="zone" before={zone.metadataTypeId} after={typeId} drop={dropUnfitting} onDrop={setDropUnfitting} />
      )}
    </FormDialog>
  );
}

function isUnrotated(rotation: { x: number; y: number; z: number; w: number } | undefined): boolean {
  return !rotation || (rotation.x === 0 && rotation.y === 0 && rotation.z === 0);
}

/** The ids of every zone under `id`, at any depth. */
export function descendantsOf(id: string, zones: Zone[]): Set<string> {
  const found = new Set<string>();
  const visit = (parent: string) => {
    for (const zone of zones) {
      if (zone.parentZoneId === parent && !found.has(zone.id)) {
        found.add(zone.id);
        visit(zone.id);
      }
    }
  };
  visit(id);
  return found;
}
