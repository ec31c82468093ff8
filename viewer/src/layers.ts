import { TilesRenderer } from '3d-tiles-renderer/three';
import { Box3, type Material, Matrix4, type Mesh, type Object3D, type Points, Sphere } from 'three';
import type { TwinApi } from './api.js';
import type { Layer } from './api-types.js';
import { type Comparison, comparisonOf } from './distance-ramp.js';
import { type HeatRange, heatRangeOf, type PointStyle } from './point-style.js';
import type { Vector3 } from './protocol.js';
import type { ViewerScene } from './scene.js';

/** How finely tiles refine, in pixels of geometric error: below 3d-tiles-renderer's 16, since points want density. */
const ERROR_TARGET = 4;
/**
 * Updates in a row with nothing queued, downloading or parsing before a layer counts as settled.
 * Right after the root tileset loads, one update sees no work before the next queues its tiles.
 */
const IDLE_UPDATES_TO_SETTLE = 5;

/** The loading counts 3d-tiles-renderer keeps on `stats` (its types leave them out). */
interface TileQueueStats {
  queued: number;
  downloading: number;
  parsing: number;
}

export interface LayerStatus {
  bundleId: string;
  tilesLoaded: number;
  pointsLoaded: number;
  /** A mesh layer's triangles in the tiles loaded (0 for a point cloud). */
  trianglesLoaded: number;
  errors: string[];
  rootLoaded: boolean;
}

/**
 * One twin layer streamed by 3d-tiles-renderer with the bearer token. Its group is placed so
 * that a tileset point lands at its twin point (docs/twins.md, "What a twin serves"): a
 * georeferenced tileset's root transform (to the globe) is undone and the layer's origin added,
 * then the scene's origin taken off. A mesh layer's tiles are GLB meshes drawn with their own
 * (textured, lit) materials; only points take the point style.
 */
export class LayerView {
  readonly tiles: TilesRenderer;
  readonly status: LayerStatus;
  /** A comparison layer's comparison (its points drawn as a heat map of `_DISTANCE`), else null. */
  readonly comparison: Comparison | null;
  private readonly heatRange: HeatRange | undefined;
  private idleUpdates = 0;
  /** Each loaded tile's point count, by its scene (for the point budget). */
  private readonly pointsOfScene = new WeakMap<Object3D, number>();

  constructor(
    readonly layer: Layer,
    private readonly viewer: ViewerScene,
    api: TwinApi,
    onFailure: (layer: Layer, error: unknown) => void,
    style: PointStyle,
  ) {
    this.status = {
      bundleId: layer.bundleId,
      tilesLoaded: 0,
      pointsLoaded: 0,
      trianglesLoaded: 0,
      errors: [],
      rootLoaded: false,
    };
    this.comparison = comparisonOf(layer);
    this.heatRange = this.comparison ? heatRangeOf(this.comparison) : undefined;
    this.tiles = new TilesRenderer(layer.tilesetUrl);
    this.tiles.errorTarget = ERROR_TARGET;
    // Every request goes through TwinApi: the token on each, and nothing once the session is refused.
    this.tiles.registerPlugin({
      name: 'RDP_AUTHORIZED_FETCH',
      fetchData: (url: string, options?: RequestInit) => api.fetch(String(url), true, options?.signal ?? undefined),
    });
    this.tiles.group.matrixAutoUpdate = false;
    this.tiles.addEventListener('load-root-tileset', ({ tileset }) => {
      this.status.rootLoaded = true;
      this.place(tileset.root?.transform);
    });
    // Each tile's points drawn by the viewer's point style (colour mode, size, clip box); its own
    // materials are the renderer's to dispose, ours are disposed with the tile.
    this.tiles.addEventListener('load-model', ({ scene }) => {
      this.status.tilesLoaded += 1;
      const points = pointsOf(scene);
      this.status.pointsLoaded += points;
      this.pointsOfScene.set(scene, points);
      this.status.trianglesLoaded += trianglesOf(scene);
      scene.traverse((child) => {
        const points = child as Points;
        if (points.isPoints) points.material = style.materialFor(points.geometry, this.heatRange);
      });
    });
    this.tiles.addEventListener('dispose-model', ({ scene }) => {
      this.status.tilesLoaded -= 1;
      this.status.pointsLoaded -= pointsOf(scene);
      this.status.trianglesLoaded -= trianglesOf(scene);
      scene.traverse((child) => {
        if ((child as Points).isPoints) ((child as Points).material as Material).dispose();
      });
    });
    this.tiles.addEventListener('load-error', ({ error, url }) => {
      this.status.errors.push(`${String(url)}: ${String(error)}`);
      onFailure(layer, error);
    });
    this.tiles.setCamera(viewer.camera);
    this.tiles.setResolutionFromRenderer(viewer.camera, viewer.renderer);
    viewer.scene.add(this.tiles.group);
    this.place(undefined);
  }

  /**
   * Twin from tileset: translate(origin − scene origin) · inverse(root transform). Only a
   * georeferenced tileset's root transform is undone (it goes to the globe); a local tileset's
   * (a mesh tiler's may have one) is part of its frame, as recorded bounds are.
   */
  private place(rootTransform: number[] | undefined): void {
    const { origin, georeferenced } = this.layer.frame;
    const matrix = new Matrix4();
    if (georeferenced && rootTransform?.length === 16) matrix.fromArray(rootTransform).invert();
    const shift = this.viewer.toScene(origin);
    matrix.premultiply(new Matrix4().makeTranslation(shift.x, shift.y, shift.z));
    this.tiles.group.matrix.copy(matrix);
    this.tiles.group.matrixWorldNeedsUpdate = true;
  }

  update(): void {
    this.tiles.setResolutionFromRenderer(this.viewer.camera, this.viewer.renderer);
    this.tiles.update();
    const { queued, downloading, parsing } = (this.tiles as TilesRenderer & { stats: TileQueueStats }).stats;
    const idle = this.status.rootLoaded && queued + downloading + parsing === 0;
    this.idleUpdates = idle ? this.idleUpdates + 1 : 0;
  }

  /** The points of the tiles drawn now (loaded tiles may be cached without being shown). */
  pointsShown(): number {
    if (!this.tiles.group.visible) return 0;
    let points = 0;
    for (const tile of this.tiles.visibleTiles) {
      const scene = (tile as { engineData?: { scene?: Object3D } }).engineData?.scene;
      if (scene) points += this.pointsOfScene.get(scene) ?? 0;
    }
    return points;
  }

  get settled(): boolean {
    return this.idleUpdates >= IDLE_UPDATES_TO_SETTLE;
  }

  set visible(visible: boolean) {
    this.tiles.group.visible = visible;
  }

  get visible(): boolean {
    return this.tiles.group.visible;
  }

  /** The layer's extent in twin coordinates: the recorded box, else the loaded tileset's bounds. */
  bounds(): { min: Vector3; max: Vector3 } | null {
    if (this.layer.boundingBox) return this.layer.boundingBox;
    const sphere = new Sphere();
    if (!this.tiles.getBoundingSphere(sphere)) return null;
    const box = new Box3();
    sphere.applyMatrix4(this.tiles.group.matrixWorld).getBoundingBox(box);
    return { min: this.viewer.toTwin(box.min), max: this.viewer.toTwin(box.max) };
  }

  dispose(): void {
    this.viewer.scene.remove(this.tiles.group);
    this.tiles.dispose();
  }
}

function pointsOf(object: Object3D): number {
  let points = 0;
  object.traverse((child) => {
    if ((child as Points).isPoints) points += (child as Points).geometry.getAttribute('position').count;
  });
  return points;
}

/** The triangles of the meshes in a tile (a mesh layer's GLB content). */
function trianglesOf(object: Object3D): number {
  let triangles = 0;
  object.traverse((child) => {
    const mesh = child as Mesh;
    if (!mesh.isMesh) return;
    const index = mesh.geometry.getIndex();
    triangles += Math.floor((index ? index.count : mesh.geometry.getAttribute('position').count) / 3);
  });
  return triangles;
}
