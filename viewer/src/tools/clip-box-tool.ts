import type { ClipBox } from '../protocol.js';
import type { Tool, ToolClick, ToolContext } from './tool.js';

/** The box's side as a share of the camera's distance to the clicked point: about what the view shows around it. */
const SIDE_PER_DISTANCE = 0.5;

/**
 * The clip box tool (docs/design/measurements.md, "Viewer tools"): a click on the scan centres a
 * clip box (as setClipBox takes it) on the point it snaps to, a cube level with the twin's axes
 * whose side is half the camera's distance to that point; only the points inside are drawn (on
 * the GPU). Another click moves it, Backspace removes it, Escape leaves the tool for select and
 * keeps the box.
 */
export class ClipBoxTool implements Tool {
  readonly name = 'clipBox';

  constructor(
    private readonly viewer: ToolContext,
    private readonly clipBox: { get(): ClipBox | null; set(box: ClipBox | null): void },
  ) {}

  activate(): void {
    this.viewer.messages.show(
      'tool',
      'Clip box: click on the scan to keep only the points in a box around it; Backspace removes it, Escape leaves.',
      'info',
    );
  }

  deactivate(): void {
    this.viewer.messages.hide('tool');
  }

  click(click: ToolClick): void {
    if (click.on !== 'canvas') return;
    // Every point is a candidate, not only those in the current box: the box moves where clicked.
    const before = this.clipBox.get();
    this.clipBox.set(null);
    const hit = this.viewer.snap(click.at);
    if (!hit) {
      this.clipBox.set(before);
      this.viewer.messages.show('tool', 'No point of the scan under the cursor: click on the points.', 'info');
      return;
    }
    const distance = this.viewer.scene.camera.position.distanceTo(this.viewer.scene.toScene(hit.position));
    const side = Math.max(distance * SIDE_PER_DISTANCE, 0.1);
    this.clipBox.set({ center: hit.position, size: { x: side, y: side, z: side }, rotation: { x: 0, y: 0, z: 0, w: 1 } });
  }

  key(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.viewer.setTool('select');
    } else if (event.key === 'Backspace') {
      event.preventDefault();
      this.clipBox.set(null);
    }
  }
}
