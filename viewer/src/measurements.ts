import type { TwinApi } from './api.js';
import type { PageMessages } from './messages.js';
import type { Measurement, MeasurementKind, Vector3, ViewerEventName, ViewerEvents } from './protocol.js';
import type { ViewerScene } from './scene.js';
import { formatValue, measurementValue } from './tools/measure-math.js';
import { MeasurementDrawing } from './tools/measurement-drawing.js';

/** A measurement drawn in the scene with its label. */
type Shown = { measurement: Measurement; drawing: MeasurementDrawing };

/**
 * The measurements shown (docs/design/measurements.md, "Viewer tools"; docs/viewer.md,
 * "Measuring"): the twin's saved ones, read when the twin loads and again at showMeasurements, and
 * the ones the tools finish: saved through the API when the token may write (TwinApi.mayWrite),
 * otherwise only reported, and in both cases sent to the parent as measurementCreated. Each is
 * drawn with its value; a click on its label sends measurementSelected.
 */
export class Measurements {
  /** The ones finished in this page, in order (saved ones as the API answered them). */
  readonly created: Measurement[] = [];
  private readonly drawings = new Set<MeasurementDrawing>();
  /** The saved ones drawn, by id. */
  private readonly saved = new Map<string, Shown>();
  /** The ones the tools finished that were not saved (id null). */
  private unsaved: Shown[] = [];
  /** The ids the tools saved since the latest read began. */
  private readonly savedMeanwhile = new Set<string>();
  /** Only the latest read is drawn: an earlier one answering later would bring back what the later one removed. */
  private reads = 0;

  constructor(
    private readonly scene: ViewerScene,
    private readonly overlay: HTMLElement,
    private readonly api: TwinApi,
    private readonly messages: PageMessages,
    private readonly emit: <K extends ViewerEventName>(name: K, payload: ViewerEvents[K]) => void,
  ) {
    scene.beforeRender.push(() => this.placeLabels());
  }

  draw(kind: MeasurementKind, draft: boolean): MeasurementDrawing {
    const drawing = new MeasurementDrawing(this.scene, this.overlay, kind, draft);
    this.drawings.add(drawing);
    return drawing;
  }

  /** A tool finished one: its value computed, saved if the token may write, drawn, and reported. */
  async finish(kind: MeasurementKind, points: Vector3[]): Promise<Measurement> {
    const name = `${kind[0]!.toUpperCase()}${kind.slice(1)} ${this.created.length + 1}`;
    let measurement: Measurement = { id: null, name, kind, points, ...measurementValue(kind, points) };
    if (this.api.mayWrite) {
      try {
        measurement = await this.api.createMeasurement({ name, kind, points });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.messages.show('measurement', `The measurement was not saved (${reason}): it is shown here only.`, 'warning');
      }
    }
    const shown = this.show(measurement);
    if (measurement.id) {
      this.saved.get(measurement.id)?.drawing.dispose();
      this.saved.set(measurement.id, shown);
      this.savedMeanwhile.add(measurement.id);
    } else this.unsaved.push(shown);
    this.created.push(measurement);
    this.emit('measurementCreated', { measurement });
    return measurement;
  }

  /** The twin's saved measurements, read again at each call (the API's answer; none when the token may not read them). */
  list(): Promise<Measurement[]> {
    return this.api.measurements();
  }

  /**
   * Reads the twin's saved measurements and draws them in place of those drawn before: renamed,
   * moved and deleted ones change with them. An unsaved one of the tools whose kind and points a
   * saved one has (the parent saved what it was reported) gives way to it.
   */
  async showSaved(): Promise<Measurement[]> {
    const read = ++this.reads;
    this.savedMeanwhile.clear();
    const list = await this.list();
    if (read !== this.reads) return list;
    for (const [id, { drawing }] of this.saved) {
      // One the tools saved after the list was read is kept: the list may not hold it yet.
      if (this.savedMeanwhile.has(id) && !list.some((measurement) => measurement.id === id)) continue;
      drawing.dispose();
      this.saved.delete(id);
    }
    for (const measurement of list) this.saved.set(measurement.id!, this.show(measurement));
    this.unsaved = this.unsaved.filter(({ measurement, drawing }) => {
      const replaced = list.some((saved) => sameShape(saved, measurement));
      if (replaced) drawing.dispose();
      return !replaced;
    });
    return list;
  }

  /** The points of a saved measurement drawn, or null for an id that is none of them. */
  pointsOf(id: string): Vector3[] | null {
    return this.saved.get(id)?.measurement.points ?? null;
  }

  /** The ids of the saved measurements drawn. */
  savedIds(): string[] {
    return [...this.saved.keys()];
  }

  /** Draws one finished measurement with its value, its label sending measurementSelected. */
  private show(measurement: Measurement): Shown {
    const value = formatValue(measurement.value, measurement.unit);
    const drawing = this.draw(measurement.kind, false);
    drawing.show(measurement.points, value);
    drawing.label.title = `${measurement.name}: ${value}`;
    drawing.label.dataset.kind = measurement.kind;
    if (measurement.id) drawing.label.dataset.id = measurement.id;
    drawing.label.addEventListener('click', (event) => {
      event.stopPropagation();
      this.emit('measurementSelected', { id: measurement.id });
    });
    return { measurement, drawing };
  }

  private placeLabels(): void {
    for (const drawing of this.drawings) {
      if (drawing.label.isConnected) drawing.place();
      else this.drawings.delete(drawing);
    }
  }
}

function sameShape(a: Measurement, b: Measurement): boolean {
  return (
    a.kind === b.kind &&
    a.points.length === b.points.length &&
    a.points.every((point, i) => {
      const other = b.points[i]!;
      return Math.abs(point.x - other.x) < 1e-6 && Math.abs(point.y - other.y) < 1e-6 && Math.abs(point.z - other.z) < 1e-6;
    })
  );
}
