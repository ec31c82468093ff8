import type { CanvasPoint } from '../picking.js';
import type { MeasurementKind, Vector3 } from '../protocol.js';
import { formatValue, measurementValue, POINT_COUNTS } from './measure-math.js';
import type { MeasurementDrawing } from './measurement-drawing.js';
import type { Tool, ToolClick, ToolContext } from './tool.js';

/**
 * A measuring tool, one per kind (distance, height, polyline, area, angle;
 * docs/design/measurements.md, "Viewer tools"): each click adds the point of the scan under the
 * cursor (snapped, picking.ts), the value shows live with the cursor's point as the next one, and
 * the measurement is finished at its kind's point count or, for a polyline or an area, on Enter
 * or a double-click. Backspace removes the last point; Escape leaves the tool for select.
 */
export class MeasureTool implements Tool {
  /** The points placed so far, twin frame. */
  points: Vector3[] = [];
  private hover: Vector3 | null = null;
  private drawing: MeasurementDrawing | null = null;
  private moveQueued: CanvasPoint | null = null;

  constructor(
    readonly name: MeasurementKind,
    private readonly viewer: ToolContext,
    private readonly finished: (kind: MeasurementKind, points: Vector3[]) => void,
  ) {}

  activate(): void {
    this.reset();
    this.drawing = this.viewer.drawMeasurement(this.name, true);
    this.viewer.messages.show('tool', hint(this.name), 'info');
  }

  deactivate(): void {
    this.reset();
    this.viewer.messages.hide('tool');
  }

  click(click: ToolClick): void {
    if (click.on !== 'canvas') return;
    const hit = this.viewer.snap(click.at);
    if (!hit) {
      this.viewer.messages.show('tool', 'No point of the scan under the cursor: click on the points.', 'info');
      return;
    }
    const last = this.points.at(-1);
    // The second click of a double-click lands on the same point: it adds nothing.
    if (last && last.x === hit.position.x && last.y === hit.position.y && last.z === hit.position.z) return;
    this.points.push(hit.position);
    this.hover = null;
    if (this.points.length >= POINT_COUNTS[this.name].max) this.finish();
    else this.redraw();
  }

  doubleClick(): void {
    this.finishIfEnough();
  }

  /** Snaps once a frame at most: a raycast walks the loaded points. */
  pointerMove(at: CanvasPoint): void {
    if (this.points.length === 0) return;
    const queued = this.moveQueued !== null;
    this.moveQueued = at;
    if (queued) return;
    requestAnimationFrame(() => {
      const point = this.moveQueued;
      this.moveQueued = null;
      if (!point || !this.drawing) return;
      this.hover = this.viewer.snap(point)?.position ?? null;
      this.redraw();
    });
  }

  key(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.viewer.setTool('select');
    } else if (event.key === 'Backspace') {
      event.preventDefault();
      this.points.pop();
      this.hover = null;
      this.redraw();
    } else if (event.key === 'Enter') {
      event.preventDefault();
      this.finishIfEnough();
    }
  }

  /** What the viewer's status shows of the measurement under way. */
  status() {
    return { points: this.points, label: this.drawing?.label.hidden === false ? this.drawing.label.textContent : null };
  }

  private finishIfEnough(): void {
    if (this.points.length >= POINT_COUNTS[this.name].min) this.finish();
  }

  private finish(): void {
    const points = this.points;
    this.points = [];
    this.hover = null;
    this.redraw();
    this.finished(this.name, points);
  }

  /** The placed points and the cursor's, with the value once there are enough for one. */
  private redraw(): void {
    if (!this.drawing) return;
    const shown = this.hover && this.points.length > 0 ? [...this.points, this.hover] : this.points;
    const enough = shown.length >= POINT_COUNTS[this.name].min;
    const value = enough ? measurementValue(this.name, shown.slice(0, POINT_COUNTS[this.name].max)) : null;
    this.drawing.show(shown, value ? formatValue(value.value, value.unit) : '');
  }

  private reset(): void {
    this.points = [];
    this.hover = null;
    this.moveQueued = null;
    this.drawing?.dispose();
    this.drawing = null;
  }
}

function hint(kind: MeasurementKind): string {
  const count = POINT_COUNTS[kind];
  const ending = count.min === count.max ? `${count.max} points` : 'Enter or a double-click to finish';
  return `Measuring ${kind}: click on the scan (${ending}); Backspace removes the last point, Escape leaves.`;
}
