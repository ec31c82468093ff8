import type { PointOfInterest, Zone } from './api-types.js';

/**
 * The viewer's postMessage protocol (docs/viewer.md, "The postMessage API"), declared once: the
 * viewer (bridge.ts) sends these events and answers these methods; rdp-embed.js (embed.ts,
 * connect-viewer.ts) and the console (console/src/areas/twin/viewer-link.ts) import the same
 * declarations. Types and two constants only, so an importer bundles nothing else of the viewer.
 *
 * Coordinates are always the twin's frame (metres, Z up), never the scene's.
 *
 * Version: `ready` and the plain `rdp.ready` message carry the platform's package version (the
 * viewer's build). The protocol only grows: a new event, method or optional field; nothing sent
 * today is renamed or removed.
 */

export interface Vector3 {
  x: number;
  y: number;
  z: number;
}

/** A camera in twin coordinates: where it is, what it looks at, its vertical field of view in degrees. */
export interface CameraState {
  position: Vector3;
  target: Vector3;
  fov: number;
}

/** What setVisibility takes: a whole kind, or one object or layer by its id. */
export type VisibilityTarget = 'layers' | 'pointsOfInterest' | 'zones' | 'modelAssets' | { id: string };

/** How the points are coloured (setColorMode): classification with a legend of the ASPRS class names. */
export type ColorMode = 'rgb' | 'intensity' | 'elevation' | 'classification' | 'single';

/** An oriented box in the twin's frame, as a zone's volume holds them: centre, full size, rotation (a unit quaternion). */
export interface ClipBox {
  center: Vector3;
  size: Vector3;
  rotation: { x: number; y: number; z: number; w: number };
}

/** The viewer's tools (setTool); the measuring ones are a measurement's kinds. */
export type ToolName = 'select' | MeasurementKind | 'clipBox' | 'sectionPlane';
export type MeasurementKind = 'distance' | 'height' | 'polyline' | 'area' | 'angle';
export type MeasurementUnit = 'm' | 'm2' | 'deg';

/**
 * A measurement as GET /v1/twin/{ctx}/measurements answers it (docs/design/measurements.md):
 * `value` and `unit` computed from the points. One the viewer made but could not save (the
 * token may not write) has `id` null and none of the fields the platform adds.
 */
export interface Measurement {
  id: string | null;
  name: string;
  kind: MeasurementKind;
  points: Vector3[];
  value: number;
  unit: MeasurementUnit;
  description?: string;
  color?: string | null;
  metadataTypeId?: string | null;
  createdBy?: string;
  updatedBy?: string;
  createdAt?: string;
  updatedAt?: string;
}

/** What the viewer sends when a layer, the twin's reads or the session fail; only `layerFailed` names a layer. */
export type ViewerError =
  | { code: 'layerFailed'; message: string; layerBundleId: string }
  | { code: 'sessionRefused' | 'twinFailed'; message: string };

/** The events the viewer sends its parent (viewer to parent), and their payloads. */
export interface ViewerEvents {
  /** The twin is read and its layers stream; `twinId` is the layout's id for a plan. */
  ready: { version: string; twinId: string; siteId: string; name: string };
  /** A point of interest's label was clicked. */
  poiSelected: { id: string; name: string; position: Vector3 };
  /** A zone was clicked. */
  zoneSelected: { id: string; name: string };
  /** The camera came to rest after a move. */
  cameraChanged: CameraState;
  /**
   * A point of the cloud was clicked: `layerBundleId` is the bundle of the layer it belongs to,
   * null when none holds it. `distance` only for a point of a comparison layer: its distance to
   * the reference in metres (signed for M3C2), null when beyond the comparison's maxDistance or
   * not computable (the points drawn grey).
   */
  pointPicked: { position: Vector3; layerBundleId: string | null; distance?: number | null };
  error: ViewerError;
  /** The active tool changed (setTool, or Escape back to select). */
  toolChanged: { tool: ToolName };
  /** A measuring tool finished one: saved when the token may write, else `id` null (reported only). */
  measurementCreated: { measurement: Measurement };
  /** A measurement's label was clicked (a saved one's, or one the tools finished); `id` null for one that was not saved. */
  measurementSelected: { id: string | null };
}

export type ViewerEventName = keyof ViewerEvents;

/** An event as one pair of arguments: `(name, payload)` narrows the payload by the name. */
export type ViewerEventArguments = { [K in ViewerEventName]: [name: K, payload: ViewerEvents[K]] }[ViewerEventName];

/** The methods the parent calls (parent to viewer), as the viewer implements them; each answers a promise across the frame. */
export interface ViewerMethods {
  /** The twin's points of interest as GET .../points-of-interest answers them. */
  getPointsOfInterest(): PointOfInterest[];
  getZones(): Zone[];
  getCamera(): CameraState;
  /**
   * Moves the camera to a point of interest, zone, placed model, layer (its bundle id) or saved
   * measurement; rejects with "nothing in this twin has the id ..." for an unknown id.
   */
  flyTo(id: string, options?: { durationMs?: number }): Promise<CameraState>;
  setCamera(camera: Partial<CameraState> & { position: Vector3; target: Vector3 }): CameraState;
  /** Answers how many things it changed; rejects for an unknown id. */
  setVisibility(target: VisibilityTarget, visible: boolean): number;
  /** Makes `tool` the active one (toolChanged follows); rejects for an unknown name. */
  setTool(tool: ToolName): ToolName;
  /** Colours every layer's points by `mode` (a comparison layer keeps its heat map); rejects for an unknown mode. */
  setColorMode(mode: ColorMode): ColorMode;
  /** Hides the points outside the box (null: shows them all again), on the GPU: nothing is fetched again. */
  setClipBox(box: ClipBox | null): ClipBox | null;
  /** Draws at most `points` points a frame (an integer of at least 1), thinned evenly; answers it. */
  setPointBudget(points: number): number;
  /** Draws each point `pixels` wide (1 to 20); answers it. */
  setPointSize(pixels: number): number;
  /** Turns eye-dome lighting on or off (off at first); answers the state. */
  setEyeDomeLighting(enabled: boolean): boolean;
  /** The twin's saved measurements as GET .../measurements answers them (none for a token that may not read them). */
  getMeasurements(): Promise<Measurement[]>;
  /**
   * Reads the twin's saved measurements again and draws them in place of those drawn (after the
   * parent saved, renamed or deleted one); answers them.
   */
  showMeasurements(): Promise<Measurement[]>;
  /**
   * Reads the twin (its layers), its points of interest, zones, placed models and saved
   * measurements again and shows them as they are now, keeping the camera, the tool and the
   * points' style (after the parent changed them through the API); answers how many of each it shows.
   */
  refresh(): Promise<{ layers: number; pointsOfInterest: number; zones: number; modelAssets: number }>;
}

/** Every method's name, for a parent that forwards them (rdp-embed.js): the checker wants each method of ViewerMethods here. */
const methodNames: Record<keyof ViewerMethods, true> = {
  getPointsOfInterest: true,
  getZones: true,
  getCamera: true,
  flyTo: true,
  setCamera: true,
  setVisibility: true,
  setTool: true,
  setColorMode: true,
  setClipBox: true,
  setPointBudget: true,
  setPointSize: true,
  setEyeDomeLighting: true,
  getMeasurements: true,
  showMeasurements: true,
  refresh: true,
};
export const VIEWER_METHOD_NAMES = Object.keys(methodNames) as (keyof ViewerMethods)[];

/** The viewer's methods as the parent calls them through the frame: each answers a promise. */
export type RemoteViewerMethods = {
  [K in keyof ViewerMethods]: (...args: Parameters<ViewerMethods[K]>) => Promise<Awaited<ReturnType<ViewerMethods[K]>>>;
};

/** The parent's one method, which the viewer calls for every event. */
export interface ParentMethods {
  event(...event: ViewerEventArguments): void;
}

/** The plain message the viewer posts once loaded, whatever library the parent uses. */
export const READY_MESSAGE_TYPE = 'rdp.ready';

export interface PlainReadyMessage {
  type: typeof READY_MESSAGE_TYPE;
  version: string;
}
