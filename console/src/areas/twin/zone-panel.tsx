import { LoadingOrError } from '../../ui/loading-or-error.js';
import type { Resource } from '../../ui/use-resource.js';
import { TWIN_OBJECT_KINDS } from './object-kinds.js';
import { DeleteObjectDialog, ObjectActions, ObjectName, ObjectPanel, usePanelDialog } from './object-panel.js';
import type { MetadataType, Selection, TwinContext, Vector3, Zone } from './twin-api.js';
import { ZoneDialog } from './zone-dialog.js';

type OpenDialog = { kind: 'create'; parent?: Zone } | { kind: 'edit'; zone: Zone } | { kind: 'delete'; zone: Zone };

/** The context's zones as a tree (nested lists, each zone under its parent); write controls for editors. */
export function ZonePanel(props: {
  context: TwinContext;
  zones: Resource<Zone[]>;
  types: MetadataType[];
  selection: Selection | undefined;
  onSelect: (selection: Selection) => void;
  start: Vector3;
  onChanged: (message: string) => void;
}) {
  const { context } = props;
  const zones = props.zones.data;
  const { dialog, open, close, saved } = usePanelDialog<OpenDialog>(props.onChanged);

  function branch(parentId: string | null, level: number) {
    const children = (zones ?? []).filter((zone) => zone.parentZoneId === parentId);
    if (children.length === 0) return null;
    return (
      <ul class={level === 1 ? 'zone-tree' : undefined} aria-label={level === 1 ? 'Zones' : undefined}>
        {children.map((zone) => {
          const selected = props.selection?.id === zone.id;
          return (
            <li key={zone.id}>
              <div class={selected ? 'zone-row selected' : 'zone-row'}>
                <ObjectName
                  name={zone.name}
                  color={zone.color}
                  selected={selected}
                  onSelect={() => props.onSelect({ kind: 'zone', id: zone.id })}
                />
                {context.canWrite && (
                  <ObjectActions
                    name={zone.name}
                    onEdit={() => open({ kind: 'edit', zone })}
                    onDelete={() => open({ kind: 'delete', zone })}
                  >
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Add zone inside ${zone.name}`}
                      onClick={() => open({ kind: 'create', parent: zone })}
                    >
                      Add zone inside
                    </button>
                  </ObjectActions>
                )}
              </div>
              {branch(zone.id, level + 1)}
            </li>
          );
        })}
      </ul>
    );
  }

  return (
    <ObjectPanel id="zone-heading" title="Zones" context={context} newLabel="New zone" onNew={() => open({ kind: 'create' })}>
      {!zones ? <LoadingOrError error={props.zones.error} /> : zones.length === 0 ? <p>No zone yet.</p> : branch(null, 1)}
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && (
        <ZoneDialog
          ctx={context.ctx}
          zone={dialog.kind === 'edit' ? dialog.zone : undefined}
          parentId={dialog.kind === 'create' ? dialog.parent?.id : undefined}
          start={dialog.kind === 'create' && dialog.parent ? (dialog.parent.volume.boxes[0]?.center ?? props.start) : props.start}
          zones={zones ?? []}
          types={props.types}
          onSaved={(zone) => saved(dialog.kind === 'edit' ? `${zone.name} saved.` : `Zone ${zone.name} created.`)}
          onClose={close}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteObjectDialog
          kind={TWIN_OBJECT_KINDS.zone}
          context={context}
          object={dialog.zone}
          onDeleted={saved}
          onClose={close}
        >
          <p>The zones inside {dialog.zone.name} move up to where it is, and its points of interest are then in no zone.</p>
        </DeleteObjectDialog>
      )}
    </ObjectPanel>
  );
}
