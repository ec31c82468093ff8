import { type Object3D, Raycaster, Vector2 } from 'three';
import type { LayerView } from './layers.js';
import type { PickedObject, TwinObjects } from './objects.js';
import type { Vector3 } from './protocol.js';
import type { ViewerScene } from './scene.js';

/** A place on the canvas in normalised device coordinates: x and y from −1 to 1, y up. */
export interface CanvasPoint {
  x: number;
  y: number;
}

/** What lies nearest under a canvas point: a zone or placed model (by id), or a point of a layer in twin coordinates. */
export type PickHit =
  | { kind: 'zone'; id: string }
  | { kind: 'modelAsset'; id: string }
  | { kind: 'point'; position: Vector3; layerBundleId: string | null };

/** Casts a ray through `at` at the zones, the placed models and the visible layers; the nearest visible thing hit, or null. */
export function pickAt(at: CanvasPoint, scene: ViewerScene, objects: TwinObjects, layers: LayerView[]): PickHit | null {
  const raycaster = new Raycaster();
  raycaster.setFromCamera(new Vector2(at.x, at.y), scene.camera);
  const distance = scene.camera.position.distanceTo(scene.controls.target);
  raycaster.params.Points.threshold = distance * 0.005;
  const targets = [
    ...objects.pickables(),
    ...layers.filter((layer) => layer.tiles.group.visible).map((layer) => layer.tiles.group),
  ];
  const hit = raycaster.intersectObjects(targets, true).find((candidate) => candidate.object.visible !== false);
  if (!hit) return null;
  const picked = hit.object.userData as Partial<PickedObject>;
  if (picked.kind === 'zone' || picked.kind === 'modelAsset') return { kind: picked.kind, id: picked.id as string };
  const layer = layers.find((candidate) => isInside(hit.object, candidate.tiles.group));
  return { kind: 'point', position: scene.toTwin(hit.point), layerBundleId: layer?.layer.bundleId ?? null };
}

function isInside(object: Object3D, ancestor: Object3D): boolean {
  for (let current: Object3D | null = object; current; current = current.parent) if (current === ancestor) return true;
  return false;
}
