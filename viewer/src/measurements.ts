import type { TwinApi } from './api.js';
import type { PageMessages } from './messages.js';
import type { Measurement, MeasurementKind, Vector3, ViewerEventName, ViewerEvents } from './protocol.js';
import type { ViewerScene } from './scene.js';
import { formatValue, measurementValue } from './tools/measure-math.js';
import { MeasurementDrawing } from './tools/measurement-drawing.js';

/**
 * The measurements the tools finish (docs/design/measurements.md, "Viewer tools"): saved through
 * the API when the token may write (TwinApi.mayWrite), otherwise only reported, and in both cases
 * sent to the parent as measurementCreated and drawn with their value; a click on one's label
 * sends measurementSelected.
 */
export class Measurements {
  /** The ones finished in this page, in order (saved ones as the API answered them). */
  readonly created: Measurement[] = [];
  private readonly drawings = new Set<MeasurementDrawing>();

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
    const drawing = this.draw(kind, false);
    drawing.show(measurement.points, formatValue(measurement.value, measurement.unit));
    drawing.label.dataset.kind = kind;
    if (measurement.id) drawing.label.dataset.id = measurement.id;
    drawing.label.addEventListener('click', (event) => {
      event.stopPropagation();
      this.emit('measurementSelected', { id: measurement.id });
    });
    this.created.push(measurement);
    this.emit('measurementCreated', { measurement });
    return measurement;
  }

  /** The twin's saved measurements, read again at each call (the API's answer). */
  saved(): Promise<Measurement[]> {
    return this.api.measurements();
  }

  private placeLabels(): void {
    for (const drawing of this.drawings) {
      if (drawing.label.isConnected) drawing.place();
      else this.drawings.delete(drawing);
    }
  }
}
