import { Vector3 as ThreeVector3 } from 'three';
import type { PickHit } from '../picking.js';
import type { ClipBox, Vector3 } from '../protocol.js';
import type { Tool, ToolClick, ToolContext } from './tool.js';

/** Where a cut tool keeps its cut: the point style's clip box or section (point-style.ts). */
interface CutSlot<Cut> {
  get(): Cut | null;
  set(cut: Cut | null): void;
}

type SnappedPoint = Extract<PickHit, { kind: 'point' }>;

/**
 * A tool that cuts the scan where it is clicked (docs/design/measurements.md, "Viewer tools"):
 * a click on the scan places the cut at the point it snaps to (every point a candidate, not only
 * those the current cut keeps: the cut moves where clicked); only the points it keeps are drawn,
 * on the GPU. Another click moves it, Backspace removes it, Escape leaves the tool for select and
 * keeps the cut.
 */
class CutTool<Cut> implements Tool {
  constructor(
    readonly name: string,
    private readonly viewer: ToolContext,
    private readonly slot: CutSlot<Cut>,
    private readonly instructions: string,
    private readonly cutAt: (hit: SnappedPoint) => Cut,
  ) {}

  activate(): void {
    this.viewer.messages.show('tool', this.instructions, 'info');
  }

  deactivate(): void {
    this.viewer.messages.hide('tool');
  }

  click(click: ToolClick): void {
    if (click.on !== 'canvas') return;
    const before = this.slot.get();
    this.slot.set(null);
    const hit = this.viewer.snap(click.at);
    if (!hit) {
      this.slot.set(before);
      this.viewer.messages.show('tool', 'No point of the scan under the cursor: click on the points.', 'info');
      return;
    }
    this.slot.set(this.cutAt(hit));
  }

  key(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.viewer.setTool('select');
    } else if (event.key === 'Backspace') {
      event.preventDefault();
      this.slot.set(null);
    }
  }
}

/** The box's side as a share of the camera's distance to the clicked point: about what the view shows around it. */
const SIDE_PER_DISTANCE = 0.5;

/**
 * The clip box tool: a cube level with the twin's axes (as setClipBox takes it), centred on the
 * snapped point, whose side is half the camera's distance to it; the points inside are kept.
 */
export function clipBoxTool(viewer: ToolContext, slot: CutSlot<ClipBox>): Tool {
  return new CutTool(
    'clipBox',
    viewer,
    slot,
    'Clip box: click on the scan to keep only the points in a box around it; Backspace removes it, Escape leaves.',
    (hit) => {
      const distance = viewer.scene.camera.position.distanceTo(viewer.scene.toScene(hit.position));
      const side = Math.max(distance * SIDE_PER_DISTANCE, 0.1);
      return { center: hit.position, size: { x: side, y: side, z: side }, rotation: { x: 0, y: 0, z: 0, w: 1 } };
    },
  );
}

/**
 * The section plane tool: a plane through the snapped point facing the camera (its normal the
 * view direction: a vertical section from a level view, a floor plan from above); a 0.5 m slice
 * of points along it is kept.
 */
export function sectionPlaneTool(viewer: ToolContext, slot: CutSlot<{ point: Vector3; normal: Vector3 }>): Tool {
  return new CutTool(
    'sectionPlane',
    viewer,
    slot,
    'Section plane: click on the scan to cut a slice facing you there; Backspace removes it, Escape leaves.',
    (hit) => {
      const direction = viewer.scene.camera.getWorldDirection(new ThreeVector3());
      return { point: hit.position, normal: { x: direction.x, y: direction.y, z: direction.z } };
    },
  );
}
