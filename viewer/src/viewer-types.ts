/**
 * What crosses the viewer's boundaries: the twin's reads as the API answers them (docs/twins.md)
 * and the postMessage API's payloads (docs/viewer.md). Coordinates are always the twin's frame
 * (metres, Z up), never the scene's.
 */
export interface Vector3 {
  x: number;
  y: number;
  z: number;
}

export interface Quaternion extends Vector3 {
  w: number;
}

export interface ViewerConfig {
  apiBase: string;
  target: { type: 'twin' | 'twinDraft' | 'project' | 'layout'; id: string };
  ctx: string;
  allowedOrigins: string[];
  embedSessionId?: string;
}

export interface Layer {
  bundleId: string;
  nodeId: string;
  kind: 'pointCloud' | 'mesh';
  tilesetUrl: string;
  boundingBox: { min: Vector3; max: Vector3 } | null;
  frame: { georeferenced: boolean; origin: Vector3 };
}

export interface Twin {
  id: string;
  siteId: string;
  name: string;
  layers: Layer[];
}

/** A layout of a planning project (GET /v1/planning/{ctx}/layouts). */
export interface PlanLayout {
  id: string;
  projectId: string;
  name: string;
  isDefault: boolean;
}

export interface Viewpoint {
  position: Vector3;
  target: Vector3;
  fov?: number;
}

export interface PointOfInterest {
  id: string;
  name: string;
  description: string;
  position: Vector3;
  viewpoint: Viewpoint | null;
  color: string | null;
  zoneId: string | null;
}

export interface OrientedBox {
  center: Vector3;
  size: Vector3;
  rotation: Quaternion;
}

export interface Zone {
  id: string;
  name: string;
  description: string;
  volume: { boxes: OrientedBox[] };
  parentZoneId: string | null;
  color: string | null;
}

export interface ModelAsset {
  id: string;
  libraryModelId: string;
  name: string;
  position: Vector3;
  rotation: Quaternion;
  scale: Vector3;
}

/** A camera in twin coordinates: where it is, what it looks at, its vertical field of view in degrees. */
export interface CameraState {
  position: Vector3;
  target: Vector3;
  fov: number;
}

/** What setVisibility takes: a whole kind, or one object or layer by its id. */
export type VisibilityTarget = 'layers' | 'pointsOfInterest' | 'zones' | 'modelAssets' | { id: string };

/** The events the viewer sends its parent, and their payloads. */
export interface ViewerEvents {
  ready: { version: string; twinId: string; siteId: string; name: string };
  poiSelected: { id: string; name: string; position: Vector3 };
  zoneSelected: { id: string; name: string };
  cameraChanged: CameraState;
  pointPicked: { position: Vector3; layerBundleId: string | null };
  error: { code: 'sessionRefused' | 'layerFailed' | 'twinFailed'; message: string; layerBundleId?: string };
}

export type ViewerEventName = keyof ViewerEvents;

/** The methods the parent calls (penpal), each answering a promise. */
export interface ViewerMethods {
  getPointsOfInterest(): PointOfInterest[];
  getZones(): Zone[];
  getCamera(): CameraState;
  flyTo(id: string, options?: { durationMs?: number }): Promise<CameraState>;
  setCamera(camera: Partial<CameraState> & { position: Vector3; target: Vector3 }): CameraState;
  setVisibility(target: VisibilityTarget, visible: boolean): number;
}

/** The plain message the viewer posts once loaded, whatever library the parent uses. */
export const READY_MESSAGE_TYPE = 'rdp.ready';
