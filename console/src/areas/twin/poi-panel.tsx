import { ErrorNotice } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { ShowMore } from '../../ui/show-more.js';
import type { PagedList } from '../../ui/use-paged-list.js';
import { TWIN_OBJECT_KINDS } from './object-kinds.js';
import { DeleteObjectDialog, ObjectActions, ObjectName, ObjectPanel, usePanelDialog } from './object-panel.js';
import { PoiDialog } from './poi-dialog.js';
import type { MetadataType, PointOfInterest, Selection, TwinContext, Vector3, Zone } from './twin-api.js';

type OpenDialog = { kind: 'create' } | { kind: 'edit'; poi: PointOfInterest } | { kind: 'delete'; poi: PointOfInterest };

/** The context's points of interest: each selects it (the 3D view flies there); write controls for editors. */
export function PoiPanel(props: {
  context: TwinContext;
  pois: PagedList<PointOfInterest>;
  zones: Zone[];
  types: MetadataType[];
  selection: Selection | undefined;
  onSelect: (selection: Selection) => void;
  picked: Vector3 | undefined;
  start: Vector3;
  onChanged: (message: string) => void;
}) {
  const { context, pois } = props;
  const { dialog, open, close, saved } = usePanelDialog<OpenDialog>(props.onChanged);
  const zoneName = (id: string | null) => props.zones.find((zone) => zone.id === id)?.name;

  return (
    <ObjectPanel
      id="poi-heading"
      title="Points of interest"
      context={context}
      newLabel="New point of interest"
      onNew={() => open({ kind: 'create' })}
    >
      {!pois.items ? (
        <LoadingOrError error={pois.error} />
      ) : pois.items.length === 0 ? (
        <p>No point of interest yet.</p>
      ) : (
        <ul class="object-list" aria-label="Points of interest">
          {pois.items.map((poi) => {
            const selected = props.selection?.id === poi.id;
            const zone = zoneName(poi.zoneId);
            return (
              <li key={poi.id} class={selected ? 'selected' : undefined}>
                <ObjectName
                  name={poi.name}
                  color={poi.color}
                  selected={selected}
                  onSelect={() => props.onSelect({ kind: 'pointOfInterest', id: poi.id })}
                />
                <span class="object-facts">
                  {formatPosition(poi.position)}
                  {zone ? ` · in ${zone}` : ''}
                </span>
                {context.canWrite && (
                  <ObjectActions
                    name={poi.name}
                    onEdit={() => open({ kind: 'edit', poi })}
                    onDelete={() => open({ kind: 'delete', poi })}
                  />
                )}
              </li>
            );
          })}
        </ul>
      )}
      <ErrorNotice error={pois.items ? pois.error : undefined} />
      {pois.items && <ShowMore list={pois} what="points" />}
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && (
        <PoiDialog
          ctx={context.ctx}
          poi={dialog.kind === 'edit' ? dialog.poi : undefined}
          start={props.start}
          picked={props.picked}
          zones={props.zones}
          types={props.types}
          onSaved={(poi) => saved(dialog.kind === 'edit' ? `${poi.name} saved.` : `Point of interest ${poi.name} created.`)}
          onClose={close}
        />
      )}
      {dialog?.kind === 'delete' && (
        <DeleteObjectDialog
          kind={TWIN_OBJECT_KINDS.pointOfInterest}
          context={context}
          object={dialog.poi}
          onDeleted={saved}
          onClose={close}
        >
          <p>
            {dialog.poi.name} and its metadata are removed from{' '}
            {context.draft ? `the draft ${context.draft.name}` : 'the live twin'}.
          </p>
        </DeleteObjectDialog>
      )}
    </ObjectPanel>
  );
}

export function formatPosition(position: Vector3): string {
  const metres = (value: number) => (Math.round(value * 100) / 100).toString();
  return `${metres(position.x)}, ${metres(position.y)}, ${metres(position.z)} m`;
}
