import { Vector3 as ThreeVector3 } from 'three';
import type { Vector3 } from '../protocol.js';
import type { Tool, ToolClick, ToolContext } from './tool.js';

type Section = { point: Vector3; normal: Vector3 } | null;

/**
 * The section plane tool (docs/design/measurements.md, "Viewer tools"): a click on the scan puts
 * a plane through the point it snaps to, facing the camera (its normal the view direction: a
 * vertical section from a level view, a floor plan from above), and only a 0.5 m slice of points
 * along it is drawn (point-style.ts, on the GPU). Another click moves it, Backspace removes it,
 * Escape leaves the tool for select and keeps the slice.
 */
export class SectionPlaneTool implements Tool {
  readonly name = 'sectionPlane';

  constructor(
    private readonly viewer: ToolContext,
    private readonly section: { get(): Section; set(section: Section): void },
  ) {}

  activate(): void {
    this.viewer.messages.show(
      'tool',
      'Section plane: click on the scan to cut a slice facing you there; Backspace removes it, Escape leaves.',
      'info',
    );
  }

  deactivate(): void {
    this.viewer.messages.hide('tool');
  }

  click(click: ToolClick): void {
    if (click.on !== 'canvas') return;
    // The whole scan is a candidate, not only the current slice: the plane moves where clicked.
    const before = this.section.get();
    this.section.set(null);
    const hit = this.viewer.snap(click.at);
    if (!hit) {
      this.section.set(before);
      this.viewer.messages.show('tool', 'No point of the scan under the cursor: click on the points.', 'info');
      return;
    }
    const direction = this.viewer.scene.camera.getWorldDirection(new ThreeVector3());
    this.section.set({ point: hit.position, normal: { x: direction.x, y: direction.y, z: direction.z } });
  }

  key(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.viewer.setTool('select');
    } else if (event.key === 'Backspace') {
      event.preventDefault();
      this.section.set(null);
    }
  }
}
