import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, TextField } from '../../ui/components.js';
import { DialogForm } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import type { Node } from '../nodes/node-kinds.js';
import { LibraryRefusal } from './library-refusals.js';
import type { LibraryModel, ModelAsset } from './library-types.js';
import { SitePicker } from './site-picker.js';

export interface Placement {
  site: Node;
  asset: ModelAsset;
}

/** Where a placed model is, in words: its site's twin, position, turn and scale. */
export function placementWords({ site, asset }: Placement): string {
  const { x, y, z } = asset.position;
  // A turn about the vertical (Z) axis only is what this dialog makes: the angle from the quaternion.
  const degrees = Math.round((2 * Math.atan2(asset.rotation.z, asset.rotation.w) * 180) / Math.PI);
  return `${asset.name} in the twin of ${site.name} at x ${x}, y ${y}, z ${z} m, turned ${degrees}° about the vertical, scale ${asset.scale.x}.`;
}

/**
 * Placing a ready model in a site's twin (POST /v1/twin/{site}/model-assets): the site chosen by
 * name or by browsing, then a position in metres in the site's frame (Z up), a turn about the
 * vertical and a scale. The platform checks edit on the site.
 */
export function PlaceModelDialog(props: { model: LibraryModel; onPlaced: (placement: Placement) => void; onClose: () => void }) {
  const session = useSession();
  const { model } = props;
  const [site, setSite] = useState<Node>();
  const [name, setName] = useState(model.name);
  const [position, setPosition] = useState({ x: '0', y: '0', z: '0' });
  const [turn, setTurn] = useState('0');
  const [scale, setScale] = useState('1');

  async function place() {
    if (!site) return;
    const half = (Number(turn) * Math.PI) / 360;
    const factor = Number(scale);
    const asset = await ok(
      session.api.POST('/v1/twin/{contextId}/model-assets', {
        params: { path: { contextId: site.id } },
        body: {
          libraryModelId: model.id,
          name,
          position: { x: Number(position.x), y: Number(position.y), z: Number(position.z) },
          rotation: { x: 0, y: 0, z: Math.sin(half), w: Math.cos(half) },
          scale: { x: factor, y: factor, z: factor },
        },
      }),
    );
    props.onPlaced({ site, asset });
  }

  return (
    <Dialog title={`Place ${model.name} in a twin`} onClose={props.onClose}>
      {!site ? (
        <>
          <p>Choose the site whose twin it goes in.</p>
          <SitePicker onPick={setSite} />
          <div class="buttons">
            <button type="button" class="quiet" onClick={props.onClose}>
              Cancel
            </button>
          </div>
        </>
      ) : (
        <DialogForm submit={`Place in ${site.name}`} notice={LibraryRefusal} onSubmit={place} onClose={props.onClose}>
          <p>
            In the twin of <strong>{site.name}</strong>.{' '}
            <button type="button" class="link" onClick={() => setSite(undefined)}>
              Choose another site
            </button>
          </p>
          <TextField label="Name in the twin" value={name} onValue={setName} required maxLength={255} />
          <fieldset class="vector">
            <legend>Position (metres in the site's frame, Z up)</legend>
            {(['x', 'y', 'z'] as const).map((axis) => (
              <TextField
                key={axis}
                label={axis.toUpperCase()}
                type="number"
                step="any"
                required
                value={position[axis]}
                onValue={(value) => setPosition((previous) => ({ ...previous, [axis]: value }))}
              />
            ))}
          </fieldset>
          <TextField label="Turn about the vertical (degrees)" type="number" step="any" required value={turn} onValue={setTurn} />
          <TextField label="Scale (1: as modelled)" type="number" step="any" required value={scale} onValue={setScale} />
        </DialogForm>
      )}
    </Dialog>
  );
}
