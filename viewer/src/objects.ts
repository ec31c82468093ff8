import {
  Box3,
  BoxGeometry,
  Color,
  EdgesGeometry,
  Group,
  LineBasicMaterial,
  LineSegments,
  Mesh,
  MeshBasicMaterial,
  type Object3D,
  Quaternion as ThreeQuaternion,
  Vector3 as ThreeVector3,
} from 'three';
import { type GLTF, GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { SessionRefusedError } from './api.js';
import type { ModelAsset, PointOfInterest, Zone } from './api-types.js';
import type { Vector3 } from './protocol.js';
import type { ViewerScene } from './scene.js';

const ZONE_COLOR = '#3fa7ff';
const MODEL_COLOR = '#ffb020';
const POI_COLOR = '#ff5a5a';

/** What a pick on the scene found: the object's kind and id are on each mesh's userData. */
export type PickedObject = { kind: 'zone' | 'modelAsset'; id: string };

/**
 * Points of interest as DOM labels over the canvas (they follow their point each frame and take
 * clicks), zones as translucent boxes with their edges, placed models from their previews (or a
 * box for a model whose library model has no preview).
 */
export class TwinObjects {
  readonly zonesGroup = new Group();
  readonly modelsGroup = new Group();
  readonly labels: HTMLElement;
  private readonly labelOf = new Map<string, { element: HTMLElement; poi: PointOfInterest }>();
  private readonly meshesOf = new Map<string, Object3D>();
  private labelsVisible = true;

  constructor(
    private readonly viewer: ViewerScene,
    overlay: HTMLElement,
    private readonly onPoiClick: (poi: PointOfInterest) => void,
  ) {
    this.labels = document.createElement('div');
    this.labels.style.cssText = 'position:absolute;inset:0;pointer-events:none;overflow:hidden';
    overlay.appendChild(this.labels);
    viewer.scene.add(this.zonesGroup, this.modelsGroup);
    viewer.beforeRender.push(() => this.placeLabels());
  }

  addPointsOfInterest(points: PointOfInterest[]): void {
    for (const poi of points) {
      const element = document.createElement('button');
      element.type = 'button';
      element.className = 'rdp-poi';
      element.dataset.id = poi.id;
      element.textContent = poi.name;
      element.title = poi.description || poi.name;
      const color = poi.color ?? POI_COLOR;
      element.style.cssText =
        'position:absolute;left:0;top:0;pointer-events:auto;cursor:pointer;white-space:nowrap;font:12px system-ui,sans-serif;' +
        `color:#fff;background:rgba(20,22,26,.85);border:1px solid ${color};border-left:4px solid ${color};` +
        'border-radius:3px;padding:2px 6px;transform:translate(-50%,-100%);will-change:transform';
      element.addEventListener('click', (event) => {
        event.stopPropagation();
        this.onPoiClick(poi);
      });
      this.labels.appendChild(element);
      this.labelOf.set(poi.id, { element, poi });
    }
  }

  addZones(zones: Zone[]): void {
    for (const zone of zones) {
      const group = new Group();
      const color = new Color(zone.color ?? ZONE_COLOR);
      for (const box of zone.volume.boxes) {
        group.add(this.box(box.center, box.size, box.rotation, color, { kind: 'zone', id: zone.id }));
      }
      group.userData = { kind: 'zone', id: zone.id };
      this.zonesGroup.add(group);
      this.meshesOf.set(zone.id, group);
    }
  }

  /**
   * Places each model from its preview GLB (`preview` reads it through one model asset of each
   * library model), else as a box; answers how many are boxes. A refused session is thrown, as by
   * the other reads; a preview that cannot be read or parsed is a box.
   */
  async addModelAssets(models: ModelAsset[], preview: (modelAssetId: string) => Promise<ArrayBuffer | null>): Promise<number> {
    const previews = new Map<string, Promise<Object3D | null>>();
    const loader = new GLTFLoader();
    let boxes = 0;
    await Promise.all(
      models.map(async (model) => {
        let scene = previews.get(model.libraryModelId);
        if (!scene) {
          scene = preview(model.id)
            .then((bytes) => (bytes ? loader.parseAsync(bytes, '').then((gltf: GLTF) => gltf.scene) : null))
            .catch((error: unknown) => {
              if (error instanceof SessionRefusedError) throw error;
              return null;
            });
          previews.set(model.libraryModelId, scene);
        }
        const loaded = await scene;
        const group = new Group();
        group.userData = { kind: 'modelAsset', id: model.id };
        if (loaded) {
          const copy = loaded.clone(true);
          // glTF is Y up, the twin Z up.
          copy.rotation.x = Math.PI / 2;
          copy.traverse((child) => {
            child.userData = { kind: 'modelAsset', id: model.id };
          });
          group.add(copy);
        } else {
          boxes += 1;
          const unit = { x: 1, y: 1, z: 1 };
          group.add(
            this.box({ x: 0, y: 0, z: 0 }, unit, { x: 0, y: 0, z: 0, w: 1 }, new Color(MODEL_COLOR), {
              kind: 'modelAsset',
              id: model.id,
            }),
          );
        }
        group.position.copy(this.viewer.toScene(model.position));
        group.quaternion.copy(new ThreeQuaternion(model.rotation.x, model.rotation.y, model.rotation.z, model.rotation.w));
        group.scale.set(model.scale.x, model.scale.y, model.scale.z);
        this.modelsGroup.add(group);
        this.meshesOf.set(model.id, group);
      }),
    );
    return boxes;
  }

  /**
   * Removes every point of interest, zone and placed model (refresh draws them again as the API
   * lists them now); the kinds' visibility set with setVisibility stays.
   */
  clear(): void {
    for (const { element } of this.labelOf.values()) element.remove();
    this.labelOf.clear();
    for (const group of [this.zonesGroup, this.modelsGroup]) {
      for (const child of [...group.children]) {
        group.remove(child);
        child.traverse((object) => (object as Mesh).geometry?.dispose());
      }
    }
    this.meshesOf.clear();
  }

  /** The twin-frame box of a zone or model asset, or null. */
  boundsOf(id: string): { min: Vector3; max: Vector3 } | null {
    const object = this.meshesOf.get(id);
    if (!object) return null;
    object.updateMatrixWorld(true);
    const box = new Box3().setFromObject(object);
    if (box.isEmpty()) return null;
    return { min: this.viewer.toTwin(box.min), max: this.viewer.toTwin(box.max) };
  }

  /** Sets one object's visibility (a point of interest, zone or model asset); false when the id is none of them. */
  setVisible(id: string, visible: boolean): boolean {
    const label = this.labelOf.get(id);
    if (label) {
      label.element.hidden = !visible;
      return true;
    }
    const object = this.meshesOf.get(id);
    if (!object) return false;
    object.visible = visible;
    return true;
  }

  setLabelsVisible(visible: boolean): void {
    this.labelsVisible = visible;
    this.labels.style.display = visible ? '' : 'none';
  }

  pickables(): Object3D[] {
    return [this.zonesGroup, this.modelsGroup];
  }

  private box(center: Vector3, size: Vector3, rotation: Vector3 & { w: number }, color: Color, userData: PickedObject): Group {
    const geometry = new BoxGeometry(size.x, size.y, size.z);
    const fill = new Mesh(geometry, new MeshBasicMaterial({ color, transparent: true, opacity: 0.12, depthWrite: false }));
    const edges = new LineSegments(new EdgesGeometry(geometry), new LineBasicMaterial({ color }));
    const group = new Group();
    group.add(fill, edges);
    group.position.copy(this.viewer.toScene(center));
    group.quaternion.copy(new ThreeQuaternion(rotation.x, rotation.y, rotation.z, rotation.w));
    fill.userData = userData;
    edges.userData = userData;
    edges.raycast = () => undefined;
    return group;
  }

  private placeLabels(): void {
    if (!this.labelsVisible || this.labelOf.size === 0) return;
    const { camera, renderer } = this.viewer;
    const width = renderer.domElement.clientWidth;
    const height = renderer.domElement.clientHeight;
    const projected = new ThreeVector3();
    for (const { element, poi } of this.labelOf.values()) {
      if (element.hidden) continue;
      projected.copy(this.viewer.toScene(poi.position)).project(camera);
      const inView = projected.z > -1 && projected.z < 1 && Math.abs(projected.x) <= 1.2 && Math.abs(projected.y) <= 1.2;
      element.style.visibility = inView ? 'visible' : 'hidden';
      if (!inView) continue;
      const x = ((projected.x + 1) / 2) * width;
      const y = ((1 - projected.y) / 2) * height;
      element.style.transform = `translate(${x.toFixed(1)}px,${y.toFixed(1)}px) translate(-50%,-100%)`;
    }
  }
}
