import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Link, Loading } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { cachedNode } from '../nodes/node-cache.js';
import { comparisonHref, readComparison } from './comparison-api.js';
import { SelectField } from './fields.js';
import type { TwinContext } from './twin-api.js';
import {
  addLayer,
  describeFrame,
  LAYER_KIND_WORDS,
  layerKey,
  processedBundlesOf,
  removeLayer,
  type TwinLayer,
} from './twin-layers.js';

type OpenDialog = { kind: 'add' } | { kind: 'remove'; layer: TwinLayer; name: string };

/**
 * The twin's layers (its site's processed scans shown in the 3D view): what each is and whether
 * it sits on the globe. Editors add one of the site's processed bundles or remove a layer; layers
 * belong to the live twin, so a draft shows them without their controls.
 */
export function LayersPanel(props: {
  context: TwinContext;
  layers: TwinLayer[] | undefined;
  onChanged: (message: string) => void;
}) {
  const session = useSession();
  const { context, layers } = props;
  const [dialog, setDialog] = useState<OpenDialog>();
  const mayChange = context.canWrite && !context.draft;
  // A layer answers its bundle's id only: the names are the bundles' (read once per session), a comparison's its own.
  const names = useResource(async () => {
    const read = await Promise.all(
      (layers ?? []).map((layer) =>
        layer.kind === 'comparison'
          ? readComparison(session, context.siteId, layerKey(layer)).then(
              (comparison) => [layerKey(layer), comparison.name] as const,
            )
          : cachedNode(session, layer.bundleId).then((node) => [layerKey(layer), node.name] as const),
      ),
    );
    return new Map(read);
  }, [layers?.map(layerKey)]);
  const nameOf = (layer: TwinLayer) =>
    names.data?.get(layerKey(layer)) ?? (layer.kind === 'comparison' ? 'Comparison' : 'Data bundle');
  const hrefOf = (layer: TwinLayer) =>
    layer.kind === 'comparison' ? comparisonHref(context.siteId, layerKey(layer)) : `/nodes/${layer.bundleId}`;
  function changed(message: string) {
    setDialog(undefined);
    props.onChanged(message);
  }

  return (
    <section class="twin-panel" aria-labelledby="layers-heading">
      <div class="panel-heading">
        <h2 id="layers-heading">Layers</h2>
        {mayChange && (
          <button type="button" onClick={() => setDialog({ kind: 'add' })}>
            Add layer
          </button>
        )}
      </div>
      {context.canWrite && context.draft && <p class="muted">Layers belong to the live twin: add or remove them there.</p>}
      {!layers ? (
        <Loading />
      ) : layers.length === 0 ? (
        <p>No layer yet: the twin shows no scan.</p>
      ) : (
        <ul class="object-list" aria-label="Layers">
          {layers.map((layer) => (
            <li key={layerKey(layer)}>
              <Link href={hrefOf(layer)} class="layer-name">
                {nameOf(layer)}
              </Link>
              <span class="object-facts">
                {LAYER_KIND_WORDS[layer.kind] ?? layer.kind} · {describeFrame(layer.frame)}
              </span>
              {mayChange && (
                <span class="object-actions">
                  <button
                    type="button"
                    class="quiet danger-text"
                    aria-label={`Remove layer ${nameOf(layer)}`}
                    onClick={() => setDialog({ kind: 'remove', layer, name: nameOf(layer) })}
                  >
                    Remove
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorNotice error={names.error} />
      {dialog?.kind === 'add' && (
        <AddLayerDialog
          siteId={context.siteId}
          present={new Set((layers ?? []).filter((layer) => layer.kind !== 'comparison').map((layer) => layer.bundleId))}
          onAdded={(name) => changed(`${name} is a layer of the twin.`)}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'remove' && (
        <ConfirmDialog
          title={`Remove layer ${dialog.name}?`}
          confirm="Remove layer"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            await removeLayer(session, context.siteId, layerKey(dialog.layer));
            changed(`${dialog.name} is no longer a layer of the twin.`);
          }}
        >
          <p>
            The twin stops showing {dialog.name}.{' '}
            {dialog.layer.kind === 'comparison'
              ? 'The comparison stays, with its figures and outputs.'
              : 'The data bundle and its point cloud stay where they are.'}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** One of the site's processed bundles that is not a layer yet, chosen and added. */
function AddLayerDialog(props: { siteId: string; present: Set<string>; onAdded: (name: string) => void; onClose: () => void }) {
  const session = useSession();
  const bundles = useResource(() => processedBundlesOf(session, props.siteId), [props.siteId]);
  const offered = (bundles.data ?? []).filter((bundle) => !props.present.has(bundle.id));
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const bundleId = chosen || offered[0]?.id || '';

  async function add(event: Event) {
    event.preventDefault();
    const bundle = offered.find((candidate) => candidate.id === bundleId);
    if (!bundle) return;
    setBusy(true);
    setError(undefined);
    try {
      await addLayer(session, props.siteId, bundle.id);
      props.onAdded(bundle.name);
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }

  return (
    <Dialog title="Add a layer" onClose={props.onClose}>
      <form onSubmit={add}>
        <p>The twin's 3D view shows the point cloud the bundle's processing made.</p>
        {!bundles.data ? (
          bundles.error ? (
            <ErrorNotice error={bundles.error} />
          ) : (
            <Loading label="Looking for the site's processed data bundles…" />
          )
        ) : offered.length === 0 ? (
          <p>
            No processed data bundle of this site is left to add. Upload a scan into the site and process it, then add it here.
          </p>
        ) : (
          <SelectField
            label="Processed data bundle"
            value={bundleId}
            onValue={setChosen}
            options={offered.map((bundle) => ({ value: bundle.id, label: bundle.name }))}
          />
        )}
        <RefusalNotice error={error} />
        <div class="buttons">
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" disabled={busy || offered.length === 0}>
            Add layer
          </button>
        </div>
      </form>
    </Dialog>
  );
}
