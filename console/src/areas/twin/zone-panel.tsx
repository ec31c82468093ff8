import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import type { Resource } from '../../ui/use-resource.js';
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
  const session = useSession();
  const { context } = props;
  const zones = props.zones.data;
  const [dialog, setDialog] = useState<OpenDialog>();
  function saved(message: string) {
    setDialog(undefined);
    props.onChanged(message);
  }

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
                <button
                  type="button"
                  class="object-name"
                  aria-pressed={selected}
                  onClick={() => props.onSelect({ kind: 'zone', id: zone.id })}
                >
                  {zone.color && <span class="swatch" style={{ background: zone.color }} aria-hidden="true" />}
                  {zone.name}
                </button>
                {context.canWrite && (
                  <span class="object-actions">
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Add zone inside ${zone.name}`}
                      onClick={() => setDialog({ kind: 'create', parent: zone })}
                    >
                      Add zone inside
                    </button>
                    <button
                      type="button"
                      class="quiet"
                      aria-label={`Edit ${zone.name}`}
                      onClick={() => setDialog({ kind: 'edit', zone })}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="quiet danger-text"
                      aria-label={`Delete ${zone.name}`}
                      onClick={() => setDialog({ kind: 'delete', zone })}
                    >
                      Delete
                    </button>
                  </span>
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
    <section class="twin-panel" aria-labelledby="zone-heading">
      <div class="panel-heading">
        <h2 id="zone-heading">Zones</h2>
        {context.canWrite && (
          <button type="button" onClick={() => setDialog({ kind: 'create' })}>
            New zone
          </button>
        )}
      </div>
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
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete ${dialog.zone.name}?`}
          confirm="Delete"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            await ok(
              session.api.DELETE('/v1/twin/{contextId}/zones/{zoneId}', {
                params: { path: { contextId: context.ctx, zoneId: dialog.zone.id } },
              }),
            );
            saved(`${dialog.zone.name} deleted.`);
          }}
        >
          <p>The zones inside {dialog.zone.name} move up to where it is, and its points of interest are then in no zone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
