import type { PointOfInterest, Zone } from '../api-types.js';
import type { PageMessages } from '../messages.js';
import type { CanvasPoint, PickHit } from '../picking.js';
import type { MeasurementKind, ToolName, ViewerEventName, ViewerEvents } from '../protocol.js';
import type { ViewerScene } from '../scene.js';
import type { MeasurementDrawing } from './measurement-drawing.js';

/** What a tool may use of the viewer (viewer.ts makes it). */
export interface ToolContext {
  readonly scene: ViewerScene;
  readonly messages: PageMessages;
  /** What lies nearest under a canvas point: a zone, a placed model, or a point of a visible layer. */
  pick(at: CanvasPoint): PickHit | null;
  /** The point of a visible layer a measuring tool snaps to: the nearest within a few pixels of `at`. */
  snap(at: CanvasPoint): Extract<PickHit, { kind: 'point' }> | null;
  zone(id: string): Zone | undefined;
  /** Makes another tool the active one (Escape goes back to select). */
  setTool(name: ToolName): void;
  /** A measurement's drawing in the scene, its label over the canvas (a draft's takes no clicks). */
  drawMeasurement(kind: MeasurementKind, draft: boolean): MeasurementDrawing;
  /** Sends an event to the parent (protocol.ts). */
  emit<K extends ViewerEventName>(name: K, payload: ViewerEvents[K]): void;
}

/** What a click landed on: the canvas at a point, or a point of interest's label (labels are DOM, over the canvas). */
export type ToolClick = { on: 'canvas'; at: CanvasPoint } | { on: 'pointOfInterest'; pointOfInterest: PointOfInterest };

/**
 * A viewer tool: what a click, a pointer move and a key do while it is the active one. The viewer
 * holds one active tool and routes input to it (input.ts); a drag stays the camera's, never a
 * click. Every method is optional: a tool answers only the input it uses.
 */
export interface Tool {
  readonly name: string;
  /** Called when the tool becomes the active one; deactivate when another replaces it. */
  activate?(): void;
  deactivate?(): void;
  click?(click: ToolClick): void;
  /** After the two clicks of a double-click on the canvas (each came to `click` first). */
  doubleClick?(): void;
  pointerMove?(at: CanvasPoint): void;
  key?(event: KeyboardEvent): void;
}
