import { type Face, MathUtils, type Mesh, type Object3D, type Points, Raycaster, Vector3 as ThreeVector3, Vector2 } from 'three';
import { pickedDistance } from './distance-ramp.js';
import type { LayerView } from './layers.js';
import type { PickedObject, TwinObjects } from './objects.js';
import type { Vector3 } from './protocol.js';
import type { ViewerScene } from './scene.js';

/** A place on the canvas in normalised device coordinates: x and y from −1 to 1, y up. */
export interface CanvasPoint {
  x: number;
  y: number;
}

/**
 * What lies nearest under a canvas point: a zone or placed model (by id), or a point of a layer in
 * twin coordinates (a point cloud's point, or the surface point of a mesh layer's triangle).
 */
export type PickHit =
  | { kind: 'zone'; id: string }
  | { kind: 'modelAsset'; id: string }
  | { kind: 'point'; position: Vector3; layerBundleId: string | null; distance?: number | null };

/** Casts a ray through `at` at the zones, the placed models and the visible layers; the nearest visible thing hit, or null. */
export function pickAt(
  at: CanvasPoint,
  scene: ViewerScene,
  objects: TwinObjects,
  layers: LayerView[],
  hidden: (scenePoint: ThreeVector3) => boolean = () => false,
): PickHit | null {
  const raycaster = new Raycaster();
  raycaster.setFromCamera(new Vector2(at.x, at.y), scene.camera);
  const distance = scene.camera.position.distanceTo(scene.controls.target);
  raycaster.params.Points.threshold = distance * 0.005;
  const targets = [
    ...objects.pickables(),
    ...layers.filter((layer) => layer.tiles.group.visible).map((layer) => layer.tiles.group),
  ];
  // A point the clip box hides is not there to pick (point-style.ts).
  const hit = raycaster
    .intersectObjects(targets, true)
    .find(
      (candidate) => candidate.object.visible !== false && !((candidate.object as Points).isPoints && hidden(candidate.point)),
    );
  if (!hit) return null;
  // A layer's first: a mesh tile's userData holds its glTF extras, never one of ours.
  const layer = layers.find((candidate) => isInside(hit.object, candidate.tiles.group));
  const picked = hit.object.userData as Partial<PickedObject>;
  if (!layer && (picked.kind === 'zone' || picked.kind === 'modelAsset')) return { kind: picked.kind, id: picked.id as string };
  const point: PickHit = { kind: 'point', position: scene.toTwin(hit.point), layerBundleId: layer?.layer.bundleId ?? null };
  // A comparison layer's point: its distance (docs/comparisons-viewer.md), null where drawn grey.
  const distances = (hit.object as Points).isPoints ? (hit.object as Points).geometry.getAttribute('_distance') : undefined;
  if (layer?.comparison && distances && hit.index !== undefined)
    point.distance = pickedDistance(distances.getX(hit.index), layer.comparison);
  return point;
}

/** How near the cursor, in pixels, a point must be for a measuring tool to snap to it. */
export const SNAP_PX = 6;
/** Points this much farther than the nearest one under the cursor are behind it (hidden), not candidates. */
const SNAP_DEPTH_MARGIN = 0.02;

/**
 * The point of a visible layer that a measuring tool snaps to (docs/design/measurements.md,
 * "Viewer tools"): among the points within SNAP_PX pixels of the cursor, the nearest to it on
 * screen of those in front (within 2% of the nearest one's depth), as the point itself, not the
 * ray's closest approach. On a mesh layer, the surface under the cursor comes first: the hit
 * triangle's vertex nearest the cursor on screen if within SNAP_PX (a corner measured exactly, as
 * a point cloud's point is), else the surface point hit. Points `hidden` (outside the clip box)
 * do not count. Null when nothing is that near.
 */
export function snapAt(
  at: CanvasPoint,
  scene: ViewerScene,
  layers: LayerView[],
  hidden: (scenePoint: ThreeVector3) => boolean = () => false,
): Extract<PickHit, { kind: 'point' }> | null {
  const { camera, renderer } = scene;
  const width = renderer.domElement.clientWidth || 1;
  const height = renderer.domElement.clientHeight || 1;
  const raycaster = new Raycaster();
  raycaster.setFromCamera(new Vector2(at.x, at.y), camera);
  // A world threshold wide enough for SNAP_PX at the target's depth; the pixel test below is exact.
  const pixelAtTarget =
    (2 * camera.position.distanceTo(scene.controls.target) * Math.tan(MathUtils.degToRad(camera.fov / 2))) / height;
  raycaster.params.Points.threshold = pixelAtTarget * SNAP_PX * 2;
  const visible = layers.filter((layer) => layer.tiles.group.visible);
  const candidates: { position: ThreeVector3; depth: number; pixels: number; layer: LayerView }[] = [];
  const vertex = new ThreeVector3();
  const projected = new ThreeVector3();
  for (const layer of visible) {
    for (const hit of raycaster.intersectObject(layer.tiles.group, true)) {
      if (hit.object.visible === false) continue;
      const points = hit.object as Points;
      if (points.isPoints && hit.index !== undefined) {
        vertex.fromBufferAttribute(points.geometry.getAttribute('position'), hit.index).applyMatrix4(points.matrixWorld);
        if (hidden(vertex)) continue;
        projected.copy(vertex).project(camera);
        const pixels = Math.hypot(((projected.x - at.x) * width) / 2, ((projected.y - at.y) * height) / 2);
        if (pixels <= SNAP_PX)
          candidates.push({ position: vertex.clone(), depth: vertex.distanceTo(camera.position), pixels, layer });
      } else if (!points.isPoints && hit.face) {
        // The surface is under the cursor itself (0 pixels): it wins over points beside it.
        const corner = nearestCorner(hit.object as Mesh, hit.face, at, camera, width, height);
        const position = corner ?? hit.point.clone();
        candidates.push({ position, depth: position.distanceTo(camera.position), pixels: 0, layer });
      }
    }
  }
  if (candidates.length === 0) return null;
  const front = Math.min(...candidates.map((candidate) => candidate.depth)) * (1 + SNAP_DEPTH_MARGIN);
  let best: (typeof candidates)[number] | undefined;
  for (const candidate of candidates) {
    if (candidate.depth > front || (best && candidate.pixels > best.pixels)) continue;
    // Of two at the same distance on screen (two surfaces hit), the nearer one: the front face.
    if (!best || candidate.pixels < best.pixels || candidate.depth < best.depth) best = candidate;
  }
  if (!best) return null;
  return { kind: 'point', position: scene.toTwin(best.position), layerBundleId: best.layer.layer.bundleId };
}

/** The vertex of a mesh's hit triangle nearest `at` on screen, in scene coordinates, if it is within SNAP_PX; else null. */
function nearestCorner(
  mesh: Mesh,
  face: Face,
  at: CanvasPoint,
  camera: ViewerScene['camera'],
  width: number,
  height: number,
): ThreeVector3 | null {
  const positions = mesh.geometry.getAttribute('position');
  let nearest: ThreeVector3 | null = null;
  let nearestPixels = SNAP_PX;
  for (const index of [face.a, face.b, face.c]) {
    const corner = new ThreeVector3().fromBufferAttribute(positions, index).applyMatrix4(mesh.matrixWorld);
    const projected = corner.clone().project(camera);
    const pixels = Math.hypot(((projected.x - at.x) * width) / 2, ((projected.y - at.y) * height) / 2);
    if (pixels <= nearestPixels) {
      nearest = corner;
      nearestPixels = pixels;
    }
  }
  return nearest;
}

function isInside(object: Object3D, ancestor: Object3D): boolean {
  for (let current: Object3D | null = object; current; current = current.parent) if (current === ancestor) return true;
  return false;
}
