import { Vector3 as ThreeVector3 } from 'three';
import { SessionRefusedError, type TwinApi } from './api.js';
import type { Layer, PointOfInterest, Twin, ViewerConfig, Zone } from './api-types.js';
import { type Bounds, checkBox, offset, sceneOrigin, union, withMargin } from './bounds.js';
import { ParentBridge } from './bridge.js';
import { EyeDomeLighting } from './eye-dome.js';
import { LayerView } from './layers.js';
import { ClassificationLegend, DistanceLegend } from './legend.js';
import { Measurements } from './measurements.js';
import { PageMessages, showSessionRefused } from './messages.js';
import { TwinObjects } from './objects.js';
import { pickAt, snapAt } from './picking.js';
import { PointStyle } from './point-style.js';
import type {
  CameraState,
  ClipBox,
  ColorMode,
  Measurement,
  ToolName,
  Vector3,
  ViewerMethods,
  VisibilityTarget,
} from './protocol.js';
import { ViewerScene } from './scene.js';
import { watchSession } from './session-watch.js';
import { clipBoxTool, sectionPlaneTool } from './tools/cut-tools.js';
import { routeInputToTool } from './tools/input.js';
import { MeasureTool } from './tools/measure-tool.js';
import { SelectTool } from './tools/select-tool.js';
import type { Tool, ToolContext } from './tools/tool.js';

/** How long the camera rests before cameraChanged is sent: a drag sends one event, not sixty a second. */
const CAMERA_EVENT_DELAY_MS = 150;

/**
 * The viewer: reads the twin, streams its layers, shows its objects, answers the parent's
 * methods and sends it events. Input goes to the active tool (tools/: select from the start).
 * Everything stops at the first refusal of the token.
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
  /** The first tool, and the active one until another is used. */
  readonly select: SelectTool;
  /** Every tool by the name setTool takes. */
  readonly tools: Record<ToolName, Tool>;
  readonly measurements: Measurements;
  /** How every layer's points are drawn: colour mode, size, clip box. */
  readonly pointStyle: PointStyle;
  private readonly legend: ClassificationLegend;
  /** The heat map's legend of the visible comparison layers. */
  private readonly distanceLegend: DistanceLegend;
  /** performance.now() of the first frame drawn with a tile in it (bench/viewer.ts measures it). */
  firstContentFrameAt: number | null = null;
  /** Placed models, and how many of them show as boxes: their library models have no preview. */
  models = { placed: 0, boxes: 0 };
  /** How many times refresh has shown the twin anew (for tests: the page was not loaded again). */
  refreshes = 0;
  private cameraTimer: number | undefined;
  /**
   * Whether the camera is settled: framed on the layers once they are known, or chosen by the
   * parent (setCamera, flyTo) or the user's drag, which framing never replaces.
   */
  private framed = false;
  private activeTool: Tool;

  constructor(
    private readonly container: HTMLElement,
    readonly config: ViewerConfig,
    private readonly api: TwinApi,
    readonly version: string,
  ) {
    this.scene = new ViewerScene(container);
    this.scene.controls.addEventListener('start', () => {
      this.framed = true;
    });
    const overlay = document.createElement('div');
    overlay.style.cssText = 'position:absolute;inset:0;pointer-events:none';
    container.appendChild(overlay);
    this.objects = new TwinObjects(this.scene, overlay, (poi) =>
      this.activeTool.click?.({ on: 'pointOfInterest', pointOfInterest: poi }),
    );
    this.messages = new PageMessages(overlay);
    this.pointStyle = new PointStyle(this.scene);
    this.legend = new ClassificationLegend(overlay);
    this.distanceLegend = new DistanceLegend(overlay);
    this.pointStyle.onNewClass = () => this.legend.show(this.pointStyle.mode === 'classification', this.pointStyle.classesSeen);
    this.bridge = new ParentBridge(config.allowedOrigins, this.methods());
    this.measurements = new Measurements(this.scene, overlay, api, this.messages, (name, payload) =>
      this.bridge.emit(name, payload),
    );
    const context = this.toolContext();
    this.select = new SelectTool(context);
    const finished = (kind: MeasureTool['name'], points: Vector3[]) => void this.measurements.finish(kind, points);
    this.tools = {
      select: this.select,
      distance: new MeasureTool('distance', context, finished),
      height: new MeasureTool('height', context, finished),
      polyline: new MeasureTool('polyline', context, finished),
      area: new MeasureTool('area', context, finished),
      angle: new MeasureTool('angle', context, finished),
      clipBox: clipBoxTool(context, {
        get: () => this.pointStyle.clipBox,
        set: (box) => this.setClipBox(box),
      }),
      sectionPlane: sectionPlaneTool(context, {
        get: () => this.pointStyle.section,
        set: (section) => this.pointStyle.setSection(section),
      }),
    };
    this.activeTool = this.select;
    this.scene.afterCameraChange.push(() => this.cameraChanged());
    this.scene.beforeRender.push(() => this.updateLayers());
    this.scene.afterRender.push(() => {
      if (this.firstContentFrameAt === null && this.layers.some((layer) => layer.tiles.visibleTiles.size > 0)) {
        this.firstContentFrameAt = performance.now();
      }
    });
    routeInputToTool(this.scene.renderer.domElement, () => (this.refused ? null : this.activeTool));
  }

  /** Makes `tool` the active one: the one that input goes to. */
  useTool(tool: Tool): void {
    if (tool === this.activeTool) return;
    this.activeTool.deactivate?.();
    this.activeTool = tool;
    tool.activate?.();
  }

  /** Makes the tool named `name` the active one and tells the parent (toolChanged). */
  setTool(name: ToolName): ToolName {
    const tool = Object.hasOwn(this.tools, name) ? this.tools[name] : undefined;
    if (!tool) throw new Error(`no tool is named ${String(name)}: one of ${Object.keys(this.tools).join(', ')}`);
    if (tool !== this.activeTool) {
      this.useTool(tool);
      this.bridge.emit('toolChanged', { tool: name });
    }
    return name;
  }

  setColorMode(mode: ColorMode): ColorMode {
    this.pointStyle.setMode(mode);
    this.legend.show(mode === 'classification', this.pointStyle.classesSeen);
    return mode;
  }

  setPointBudget(points: number): number {
    if (!Number.isInteger(points) || points < 1) throw new Error('setPointBudget takes an integer of at least 1');
    this.pointStyle.pointBudget = points;
    return points;
  }

  setPointSize(pixels: number): number {
    if (!Number.isFinite(pixels) || pixels < 1 || pixels > 20)
      throw new Error('setPointSize takes a number of pixels from 1 to 20');
    this.pointStyle.setPointSize(pixels);
    return pixels;
  }

  setEyeDomeLighting(enabled: boolean): boolean {
    if (typeof enabled !== 'boolean') throw new Error('setEyeDomeLighting takes true or false');
    if (enabled && !this.scene.eyeDome) this.scene.eyeDome = new EyeDomeLighting();
    if (!enabled && this.scene.eyeDome) {
      this.scene.eyeDome.dispose();
      this.scene.eyeDome = null;
    }
    return enabled;
  }

  setClipBox(box: ClipBox | null): ClipBox | null {
    if (box !== null) checkBox(box);
    this.pointStyle.setClipBox(box);
    return box;
  }

  /** Reads the twin (or takes the read already under way: main.ts starts it before the WebGL context is made) and shows it. */
  async load(twinRead: Promise<Twin> = this.api.twin()): Promise<void> {
    try {
      const twin = await twinRead;
      this.twin = twin;
      this.scene.origin = sceneOrigin(twin.layers);
      // The tiles start streaming first; the objects are read meanwhile.
      this.showLayers(twin.layers);
      this.frameEverything();
      this.scene.start();
      await this.showObjects(true);
      if (this.refused) return;
      this.ready = true;
      if (this.api.isEmbedSession) void watchSession(this.api, () => this.sessionRefused());
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

  /**
   * Reads the twin and its objects again and shows them as they are now, keeping the camera, the
   * tool and the points' style (the parent changed them through the API: docs/viewer.md, refresh).
   * A layer still linked keeps its loaded tiles; one unlinked goes, one linked starts streaming.
   * Calls made together run one after the other, so none draws over another's objects.
   */
  refresh(): Promise<{ layers: number; pointsOfInterest: number; zones: number; modelAssets: number }> {
    const next = this.refreshing.then(() => this.refreshOnce());
    this.refreshing = next.catch(() => undefined);
    return next;
  }

  private refreshing: Promise<unknown> = Promise.resolve();

  private async refreshOnce() {
    try {
      const twin = await this.api.twin();
      this.twin = twin;
      const key = (layer: Layer) => `${layer.bundleId} ${layer.tilesetUrl}`;
      const kept = new Set(twin.layers.map(key));
      for (const view of [...this.layers]) {
        if (kept.has(key(view.layer))) continue;
        view.dispose();
        this.layers.splice(this.layers.indexOf(view), 1);
        this.messages.hide(`layer-${view.layer.bundleId}`);
      }
      // The first layers of a twin that had none: the scene is shifted to them and the camera frames them once.
      if (this.layers.length === 0 && twin.layers.length > 0) {
        this.scene.origin = sceneOrigin(twin.layers);
        this.framed = false;
      }
      const shown = new Set(this.layers.map((view) => key(view.layer)));
      this.showLayers(twin.layers.filter((layer) => !shown.has(key(layer))));
      await this.showObjects(false);
      this.refreshes += 1;
      return {
        layers: this.layers.length,
        pointsOfInterest: this.pointsOfInterest.length,
        zones: this.zones.length,
        modelAssets: this.models.placed,
      };
    } catch (error) {
      if (error instanceof SessionRefusedError) this.sessionRefused();
      throw error;
    }
  }

  /** Streams these layers beside those shown; the elevation ramp and the distance legend follow them all. */
  private showLayers(layers: Layer[]): void {
    for (const layer of layers) {
      this.layers.push(
        new LayerView(layer, this.scene, this.api, (failed, error) => this.layerFailed(failed, error), this.pointStyle),
      );
    }
    this.showDistanceLegend();
    // The elevation ramp spans the layers' recorded boxes.
    const layerBoxes = this.layers.flatMap((view) => (view.layer.boundingBox ? [view.layer.boundingBox] : []));
    if (layerBoxes.length > 0) {
      const heights = union(layerBoxes);
      this.pointStyle.setHeights(heights.min.z, heights.max.z);
    }
  }

  /** Reads and draws the points of interest, zones, placed models and saved measurements (at load: frames them when there are no layers). */
  private async showObjects(firstLoad: boolean): Promise<void> {
    const [pointsOfInterest, zones, models] = await Promise.all([
      this.api.pointsOfInterest(),
      this.api.zones(),
      this.api.modelAssets(),
      this.showMeasurements(),
    ]);
    if (this.refused) return;
    this.pointsOfInterest = pointsOfInterest;
    this.zones = zones;
    // Read first, then replaced at once: the labels do not blink while the lists are read.
    if (!firstLoad) this.objects.clear();
    this.objects.addPointsOfInterest(pointsOfInterest);
    this.objects.addZones(zones);
    // Without layers the objects are what the camera frames.
    if (firstLoad && this.layers.length === 0) this.frameEverything();
    const boxes = await this.objects.addModelAssets(models, (id) => this.api.preview(id));
    this.models = { placed: models.length, boxes };
    if (boxes > 0) {
      this.messages.show('models', `${boxes} placed model(s) shown as boxes: their library models have no preview.`, 'info');
    } else this.messages.hide('models');
    if (this.layers.length === 0) this.messages.show('layers', 'This twin has no 3D layers yet.', 'info');
    else this.messages.hide('layers');
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
      setCamera: (camera) => {
        this.framed = true;
        return this.scene.setCamera(camera);
      },
      setVisibility: (target, visible) => this.setVisibility(target, visible),
      setTool: (name) => this.setTool(name),
      setColorMode: (mode) => this.setColorMode(mode),
      setClipBox: (box) => this.setClipBox(box),
      setPointBudget: (points) => this.setPointBudget(points),
      setPointSize: (pixels) => this.setPointSize(pixels),
      setEyeDomeLighting: (enabled) => this.setEyeDomeLighting(enabled),
      getMeasurements: () => this.measurements.list(),
      showMeasurements: () => this.showMeasurements(),
      refresh: () => this.refresh(),
    };
  }

  /**
   * Reads the twin's saved measurements and draws them in place of those drawn before (at load,
   * and when the parent changed them: showMeasurements). A read that fails leaves a note on the
   * page and none drawn, never the twin unshown; a refused session ends as every read's does.
   */
  async showMeasurements(): Promise<Measurement[]> {
    try {
      const shown = await this.measurements.showSaved();
      this.messages.hide('measurements');
      return shown;
    } catch (error) {
      if (error instanceof SessionRefusedError) {
        this.sessionRefused();
        throw error;
      }
      const reason = error instanceof Error ? error.message : String(error);
      this.messages.show('measurements', `The saved measurements could not be read (${reason}).`, 'warning');
      return [];
    }
  }

  flyTo(id: string, durationMs?: number): Promise<CameraState> {
    const poi = this.pointsOfInterest.find((candidate) => candidate.id === id);
    if (poi?.viewpoint) {
      this.framed = true;
      const { position, target, fov } = poi.viewpoint;
      return this.scene.flyTo({ position, target, fov: fov ?? this.scene.camera.fov }, durationMs);
    }
    const measured = this.measurements.pointsOf(id);
    const bounds: Bounds | null = poi
      ? { min: offset(poi.position, -2), max: offset(poi.position, 2) }
      : (this.objects.boundsOf(id) ??
        this.layers.find((layer) => layer.layer.bundleId === id)?.bounds() ??
        (measured ? withMargin(union(measured.map((point) => ({ min: point, max: point })))) : null));
    if (!bounds) return Promise.reject(new Error(`nothing in this twin has the id ${id}`));
    this.framed = true;
    return this.scene.flyTo(this.cameraFraming(bounds), durationMs);
  }

  setVisibility(target: VisibilityTarget, visible: boolean): number {
    const changed = this.changeVisibility(target, visible);
    this.showDistanceLegend();
    return changed;
  }

  /** The legend of the comparison layers shown (a hidden layer's goes with it). */
  private showDistanceLegend(): void {
    this.distanceLegend.show(this.layers.flatMap((layer) => (layer.comparison && layer.visible ? [layer.comparison] : [])));
  }

  private changeVisibility(target: VisibilityTarget, visible: boolean): number {
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
      lastPick: this.select.lastPick,
      tool: this.activeTool.name,
      measuring: this.activeTool instanceof MeasureTool ? this.activeTool.status() : null,
      measurements: this.measurements.created,
      savedMeasurements: this.measurements.savedIds(),
      colorMode: this.pointStyle.mode,
      clipBox: this.pointStyle.clipBox,
      section: this.pointStyle.section,
      pointBudget: this.pointStyle.pointBudget,
      pointSize: this.pointStyle.pointSize,
      eyeDomeLighting: this.scene.eyeDome !== null,
      pointsShown: this.layers.reduce((sum, layer) => sum + layer.pointsShown(), 0),
      firstContentFrameAt: this.firstContentFrameAt,
      models: this.models,
      camera: this.scene.getCamera(),
      flightsLanded: this.scene.flightsLanded,
      refreshes: this.refreshes,
    };
  }

  private updateLayers(): void {
    if (this.refused) return;
    for (const layer of this.layers) layer.update();
    let shown = 0;
    for (const layer of this.layers) shown += layer.pointsShown();
    this.pointStyle.applyBudget(shown);
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

  /** What tools may use of the viewer. */
  private toolContext(): ToolContext {
    return {
      scene: this.scene,
      messages: this.messages,
      pick: (at) => pickAt(at, this.scene, this.objects, this.layers, (point) => this.pointStyle.hides(point)),
      snap: (at) => snapAt(at, this.scene, this.layers, (point) => this.pointStyle.hides(point)),
      zone: (id) => this.zones.find((candidate) => candidate.id === id),
      setTool: (name) => this.setTool(name),
      drawMeasurement: (kind, draft) => this.measurements.draw(kind, draft),
      emit: (name, payload) => this.bridge.emit(name, payload),
    };
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
}
