import { type Object3D, Raycaster, Vector3 as ThreeVector3, Vector2 } from 'three';
import { SessionRefusedError, type TwinApi } from './api.js';
import type { Layer, PointOfInterest, Twin, ViewerConfig, Zone } from './api-types.js';
import { ParentBridge } from './bridge.js';
import { LayerView } from './layers.js';
import { PageMessages, showSessionRefused } from './messages.js';
import { type PickedObject, TwinObjects } from './objects.js';
import type { CameraState, Vector3, ViewerMethods, VisibilityTarget } from './protocol.js';
import { ViewerScene } from './scene.js';

type Bounds = { min: Vector3; max: Vector3 };

/** How long the camera rests before cameraChanged is sent: a drag sends one event, not sixty a second. */
const CAMERA_EVENT_DELAY_MS = 150;

/**
 * The viewer: reads the twin, streams its layers, shows its objects, answers the parent's
 * methods and sends it events. Everything stops at the first refusal of the token.
 */
export class Viewer {
  readonly scene: ViewerScene;
  readonly messages: PageMessages;
  readonly objects: TwinObjects;
  readonly bridge: ParentBridge;
  readonly layers: LayerView[] = [];
  twin: Twin | null = null;
  pointsOfInterest: PointOfInterest[] = [];
  zones: Zone[] = [];
  ready = false;
  refused = false;
  lastPick: { position: Vector3; layerBundleId: string | null } | null = null;
  /** performance.now() of the first frame drawn with a tile in it (bench/viewer.ts measures it). */
  firstContentFrameAt: number | null = null;
  /** Placed models, and how many of them show as boxes for want of a preview. */
  models = { placed: 0, boxes: 0 };
  private cameraTimer: number | undefined;
  private framed = false;

  constructor(
    private readonly container: HTMLElement,
    readonly config: ViewerConfig,
    private readonly api: TwinApi,
    readonly version: string,
  ) {
    this.scene = new ViewerScene(container);
    const overlay = document.createElement('div');
    overlay.style.cssText = 'position:absolute;inset:0;pointer-events:none';
    container.appendChild(overlay);
    this.objects = new TwinObjects(this.scene, overlay, (poi) => this.selectPointOfInterest(poi));
    this.messages = new PageMessages(overlay);
    this.bridge = new ParentBridge(config.allowedOrigins, this.methods());
    this.scene.afterCameraChange.push(() => this.cameraChanged());
    this.scene.beforeRender.push(() => this.updateLayers());
    this.scene.afterRender.push(() => {
      if (this.firstContentFrameAt === null && this.layers.some((layer) => layer.tiles.visibleTiles.size > 0)) {
        this.firstContentFrameAt = performance.now();
      }
    });
    this.listenForPicks();
  }

  /** Reads the twin (or takes the read already under way: main.ts starts it before the WebGL context is made) and shows it. */
  async load(twinRead: Promise<Twin> = this.api.twin()): Promise<void> {
    try {
      const twin = await twinRead;
      this.twin = twin;
      this.scene.origin = sceneOrigin(twin.layers);
      // The tiles start streaming first; the objects are read meanwhile.
      for (const layer of twin.layers) {
        this.layers.push(new LayerView(layer, this.scene, this.api, (failed, error) => this.layerFailed(failed, error)));
      }
      this.frameEverything();
      this.scene.start();
      const [pointsOfInterest, zones, models] = await Promise.all([
        this.api.pointsOfInterest(),
        this.api.zones(),
        this.api.modelAssets(),
      ]);
      if (this.refused) return;
      this.pointsOfInterest = pointsOfInterest;
      this.zones = zones;
      this.objects.addPointsOfInterest(pointsOfInterest);
      this.objects.addZones(zones);
      // Without layers the objects are what the camera frames.
      if (this.layers.length === 0) this.frameEverything();
      const boxes = await this.objects.addModelAssets(models, (id) => this.api.previewUrl(id));
      this.models = { placed: models.length, boxes };
      if (boxes > 0) {
        this.messages.show(
          'models',
          `${boxes} placed model(s) shown as boxes: their previews need the asset library's download permission.`,
          'info',
        );
      }
      if (twin.layers.length === 0) this.messages.show('layers', 'This twin has no 3D layers yet.', 'info');
      this.ready = true;
      this.bridge.emit('ready', { version: this.version, twinId: twin.id, siteId: twin.siteId, name: twin.name });
      this.bridge.postPlainReady(this.version);
    } catch (error) {
      if (error instanceof SessionRefusedError) this.sessionRefused();
      else {
        const message = `The twin could not be loaded: ${error instanceof Error ? error.message : String(error)}`;
        this.messages.show('twin', message, 'error');
        this.bridge.emit('error', { code: 'twinFailed', message });
      }
    }
  }

  /** Stops everything: no frame, no tile, no read more; the page says why, and so does the event to the parent. */
  sessionRefused(): void {
    if (this.refused) return;
    this.refused = true;
    this.api.refused = true;
    this.scene.stopped = true;
    for (const layer of this.layers) layer.dispose();
    showSessionRefused(this.container);
    this.bridge.emit('error', { code: 'sessionRefused', message: 'this session has expired or was revoked' });
  }

  /** What the parent may call (penpal); coordinates in the twin's frame. */
  methods(): ViewerMethods {
    return {
      getPointsOfInterest: () => this.pointsOfInterest,
      getZones: () => this.zones,
      getCamera: () => this.scene.getCamera(),
      flyTo: (id, options) => this.flyTo(id, options?.durationMs),
      setCamera: (camera) => this.scene.setCamera(camera),
      setVisibility: (target, visible) => this.setVisibility(target, visible),
    };
  }

  flyTo(id: string, durationMs?: number): Promise<CameraState> {
    const poi = this.pointsOfInterest.find((candidate) => candidate.id === id);
    if (poi?.viewpoint) {
      const { position, target, fov } = poi.viewpoint;
      return this.scene.flyTo({ position, target, fov: fov ?? this.scene.camera.fov }, durationMs);
    }
    const bounds: Bounds | null = poi
      ? { min: offset(poi.position, -2), max: offset(poi.position, 2) }
      : (this.objects.boundsOf(id) ?? this.layers.find((layer) => layer.layer.bundleId === id)?.bounds() ?? null);
    if (!bounds) return Promise.reject(new Error(`nothing in this twin has the id ${id}`));
    return this.scene.flyTo(this.cameraFraming(bounds), durationMs);
  }

  setVisibility(target: VisibilityTarget, visible: boolean): number {
    if (target === 'layers') {
      for (const layer of this.layers) layer.visible = visible;
      return this.layers.length;
    }
    if (target === 'pointsOfInterest') {
      this.objects.setLabelsVisible(visible);
      return this.pointsOfInterest.length;
    }
    if (target === 'zones' || target === 'modelAssets') {
      const group = target === 'zones' ? this.objects.zonesGroup : this.objects.modelsGroup;
      group.visible = visible;
      return group.children.length;
    }
    const layer = this.layers.find((candidate) => candidate.layer.bundleId === target.id);
    if (layer) {
      layer.visible = visible;
      return 1;
    }
    if (this.objects.setVisible(target.id, visible)) return 1;
    throw new Error(`nothing in this twin has the id ${target.id}`);
  }

  /** Diagnostics for tests and integrators (window.rdpViewerStatus). */
  status() {
    return {
      version: this.version,
      ready: this.ready,
      refused: this.refused,
      frames: this.scene.frames,
      layers: this.layers.map((layer) => ({ ...layer.status, errors: [...layer.status.errors], settled: layer.settled })),
      lastPick: this.lastPick,
      firstContentFrameAt: this.firstContentFrameAt,
      models: this.models,
      camera: this.scene.getCamera(),
    };
  }

  private updateLayers(): void {
    if (this.refused) return;
    for (const layer of this.layers) layer.update();
    if (!this.framed) this.frameEverything();
  }

  /** Frames the layers' extents, else the objects; until a layer without a recorded box has loaded its root, tries again each frame. */
  private frameEverything(): void {
    const boxes: Bounds[] = [];
    let pending = false;
    for (const layer of this.layers) {
      const bounds = layer.bounds();
      if (bounds) boxes.push(bounds);
      else pending = true;
    }
    if (boxes.length === 0) {
      for (const poi of this.pointsOfInterest) boxes.push({ min: poi.position, max: poi.position });
      for (const zone of this.zones) {
        const bounds = this.objects.boundsOf(zone.id);
        if (bounds) boxes.push(bounds);
      }
    }
    if (boxes.length === 0) {
      this.framed = !pending;
      return;
    }
    this.framed = !pending;
    this.scene.setCamera(this.cameraFraming(union(boxes)));
  }

  private cameraFraming(bounds: Bounds): CameraState {
    const center = {
      x: (bounds.min.x + bounds.max.x) / 2,
      y: (bounds.min.y + bounds.max.y) / 2,
      z: (bounds.min.z + bounds.max.z) / 2,
    };
    const radius = Math.max(
      1,
      Math.hypot(bounds.max.x - bounds.min.x, bounds.max.y - bounds.min.y, bounds.max.z - bounds.min.z) / 2,
    );
    const fov = this.scene.camera.fov;
    const distance = (radius / Math.sin(((fov / 2) * Math.PI) / 180)) * 1.05;
    const direction = new ThreeVector3().subVectors(this.scene.camera.position, this.scene.controls.target);
    if (direction.lengthSq() < 1e-9) direction.set(1, -1, 0.8);
    direction.normalize().multiplyScalar(distance);
    return { position: { x: center.x + direction.x, y: center.y + direction.y, z: center.z + direction.z }, target: center, fov };
  }

  private selectPointOfInterest(poi: PointOfInterest): void {
    this.bridge.emit('poiSelected', { id: poi.id, name: poi.name, position: poi.position });
  }

  private layerFailed(layer: Layer, error: unknown): void {
    if (error instanceof SessionRefusedError || this.api.refused) {
      this.sessionRefused();
      return;
    }
    const message = `A layer could not be loaded (bundle ${layer.bundleId}): ${error instanceof Error ? error.message : String(error)}`;
    this.messages.show(`layer-${layer.bundleId}`, message, 'warning');
    this.bridge.emit('error', { code: 'layerFailed', message, layerBundleId: layer.bundleId });
  }

  private cameraChanged(): void {
    window.clearTimeout(this.cameraTimer);
    this.cameraTimer = window.setTimeout(() => {
      if (!this.refused) this.bridge.emit('cameraChanged', this.scene.getCamera());
    }, CAMERA_EVENT_DELAY_MS);
  }

  /** A click (a press and release without a drag) picks the nearest zone, model or point under it. */
  private listenForPicks(): void {
    const canvas = this.scene.renderer.domElement;
    let down: { x: number; y: number } | null = null;
    canvas.addEventListener('pointerdown', (event) => {
      down = { x: event.clientX, y: event.clientY };
    });
    canvas.addEventListener('pointerup', (event) => {
      if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > 4) return;
      down = null;
      const rect = canvas.getBoundingClientRect();
      this.pick(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
    });
  }

  pick(x: number, y: number): void {
    if (this.refused) return;
    const raycaster = new Raycaster();
    raycaster.setFromCamera(new Vector2(x, y), this.scene.camera);
    const distance = this.scene.camera.position.distanceTo(this.scene.controls.target);
    raycaster.params.Points.threshold = distance * 0.005;
    const targets = [
      ...this.objects.pickables(),
      ...this.layers.filter((layer) => layer.tiles.group.visible).map((layer) => layer.tiles.group),
    ];
    const hit = raycaster.intersectObjects(targets, true).find((candidate) => candidate.object.visible !== false);
    if (!hit) return;
    const picked = hit.object.userData as Partial<PickedObject>;
    if (picked.kind === 'zone') {
      const zone = this.zones.find((candidate) => candidate.id === picked.id);
      if (zone) this.bridge.emit('zoneSelected', { id: zone.id, name: zone.name });
      return;
    }
    if (picked.kind === 'modelAsset') return;
    const layer = this.layers.find((candidate) => isInside(hit.object, candidate.tiles.group));
    const position = this.scene.toTwin(hit.point);
    this.lastPick = { position, layerBundleId: layer?.layer.bundleId ?? null };
    this.messages.show(
      'pick',
      `Picked x ${position.x.toFixed(3)}, y ${position.y.toFixed(3)}, z ${position.z.toFixed(3)}`,
      'info',
    );
    this.bridge.emit('pointPicked', this.lastPick);
  }
}

/** The scene's origin: the first layer's centre (its box, else its frame's origin), so its coordinates stay small. */
function sceneOrigin(layers: Layer[]): Vector3 {
  const first = layers[0];
  if (!first) return { x: 0, y: 0, z: 0 };
  const box = first.boundingBox;
  if (!box) return first.frame.origin;
  return { x: (box.min.x + box.max.x) / 2, y: (box.min.y + box.max.y) / 2, z: (box.min.z + box.max.z) / 2 };
}

function union(boxes: Bounds[]): Bounds {
  const min = { x: Infinity, y: Infinity, z: Infinity };
  const max = { x: -Infinity, y: -Infinity, z: -Infinity };
  for (const box of boxes) {
    for (const axis of ['x', 'y', 'z'] as const) {
      min[axis] = Math.min(min[axis], box.min[axis]);
      max[axis] = Math.max(max[axis], box.max[axis]);
    }
  }
  return { min, max };
}

function offset(point: Vector3, by: number): Vector3 {
  return { x: point.x + by, y: point.y + by, z: point.z + by };
}

function isInside(object: Object3D, ancestor: Object3D): boolean {
  for (let current: Object3D | null = object; current; current = current.parent) if (current === ancestor) return true;
  return false;
}
