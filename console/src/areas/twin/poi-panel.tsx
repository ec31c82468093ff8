import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import type { PagedList } from '../../ui/use-paged-list.js';
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
  const session = useSession();
  const { context, pois } = props;
  const [dialog, setDialog] = useState<OpenDialog>();
  const zoneName = (id: string | null) => props.zones.find((zone) => zone.id === id)?.name;
  function saved(message: string) {
    setDialog(undefined);
    props.onChanged(message);
  }

  return (
    <section class="twin-panel" aria-labelledby="poi-heading">
      <div class="panel-heading">
        <h2 id="poi-heading">Points of interest</h2>
        {context.canWrite && (
          <button type="button" onClick={() => setDialog({ kind: 'create' })}>
            New point of interest
          </button>
        )}
      </div>
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
                <button
                  type="button"
                  class="object-name"
                  aria-pressed={selected}
                  onClick={() => props.onSelect({ kind: 'pointOfInterest', id: poi.id })}
                >
                  {poi.color && <span class="swatch" style={{ background: poi.color }} aria-hidden="true" />}
                  {poi.name}
                </button>
                <span class="object-facts">
                  {formatPosition(poi.position)}
                  {zone ? ` · in ${zone}` : ''}
                </span>
                {context.canWrite && (
                  <span class="object-actions">
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Edit ${poi.name}`}
                      onClick={() => setDialog({ kind: 'edit', poi })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="quiet danger-text"
                      aria-label={`Delete ${poi.name}`}
                      onClick={() => setDialog({ kind: 'delete', poi })}
                    >
                      Delete
                    </button>
                  </span>
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
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${dialog.poi.name}?`}
          confirm="Delete"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            await ok(
              session.api.DELETE('/v1/twin/{contextId}/points-of-interest/{pointOfInterestId}', {
                params: { path: { contextId: context.ctx, pointOfInterestId: dialog.poi.id } },
              }),
            );
            saved(`${dialog.poi.name} deleted.`);
          }}
        >
          <p>
            {dialog.poi.name} and its metadata are removed from{' '}
            {context.draft ? `the draft ${context.draft.name}` : 'the live twin'}.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

export function formatPosition(position: Vector3): string {
  const metres = (value: number) => (Math.round(value * 100) / 100).toString();
  return `${metres(position.x)}, ${metres(position.y)}, ${metres(position.z)} m`;
}
