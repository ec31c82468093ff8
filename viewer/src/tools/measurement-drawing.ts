import {
  BufferGeometry,
  Float32BufferAttribute,
  Group,
  Line,
  LineBasicMaterial,
  LineLoop,
  Points,
  PointsMaterial,
  Vector3 as ThreeVector3,
} from 'three';
import type { MeasurementKind, Vector3 } from '../protocol.js';
import type { ViewerScene } from '../scene.js';

const DRAFT_COLOR = '#ffd23f';
const DONE_COLOR = '#4fe0a0';

/**
 * One measurement drawn in the scene: its points as dots, the segments between them (closed for
 * an area), over the cloud (no depth test, so points behind do not hide it), and its value as a
 * DOM label over the canvas that follows its last point each frame (as points of interest's do).
 */
export class MeasurementDrawing {
  readonly group = new Group();
  readonly label: HTMLButtonElement;
  private points: Vector3[] = [];
  private readonly line: Line;
  private readonly dots: Points;

  constructor(
    private readonly viewer: ViewerScene,
    overlay: HTMLElement,
    kind: MeasurementKind,
    draft: boolean,
  ) {
    const color = draft ? DRAFT_COLOR : DONE_COLOR;
    const lineMaterial = new LineBasicMaterial({ color, depthTest: false, transparent: true });
    this.line = kind === 'area' ? new LineLoop(new BufferGeometry(), lineMaterial) : new Line(new BufferGeometry(), lineMaterial);
    this.dots = new Points(
      new BufferGeometry(),
      new PointsMaterial({ color, size: 7, sizeAttenuation: false, depthTest: false, transparent: true }),
    );
    for (const object of [this.line, this.dots]) {
      object.renderOrder = 10;
      // Never picked: measuring snaps to the scan, not to its own drawings.
      object.raycast = () => undefined;
    }
    this.group.add(this.line, this.dots);
    viewer.scene.add(this.group);
    this.label = document.createElement('button');
    this.label.type = 'button';
    this.label.className = draft ? 'rdp-measurement rdp-measurement-draft' : 'rdp-measurement';
    this.label.style.cssText =
      'position:absolute;left:0;top:0;white-space:nowrap;font:12px system-ui,sans-serif;color:#111;' +
      `background:${color};border:0;border-radius:3px;padding:2px 6px;transform:translate(-50%,-130%);` +
      `pointer-events:${draft ? 'none' : 'auto'};cursor:pointer`;
    this.label.hidden = true;
    overlay.appendChild(this.label);
  }

  /** Draws `points` (twin frame) with `text` on its label (hidden when empty). */
  show(points: Vector3[], text: string): void {
    this.points = points;
    const positions = points.flatMap((point) => this.viewer.toScene(point).toArray());
    for (const object of [this.line, this.dots]) {
      object.geometry.setAttribute('position', new Float32BufferAttribute(positions, 3));
      object.geometry.computeBoundingSphere();
    }
    this.label.textContent = text;
    this.label.hidden = text === '' || points.length === 0;
    this.place();
  }

  /** Follows the last point on screen: called before each frame. */
  place(): void {
    const last = this.points.at(-1);
    if (!last || this.label.hidden) return;
    const { camera, renderer } = this.viewer;
    const projected = new ThreeVector3().copy(this.viewer.toScene(last)).project(camera);
    const inView = projected.z > -1 && projected.z < 1;
    this.label.style.visibility = inView ? 'visible' : 'hidden';
    const x = ((projected.x + 1) / 2) * renderer.domElement.clientWidth;
    const y = ((1 - projected.y) / 2) * renderer.domElement.clientHeight;
    this.label.style.transform = `translate(${x.toFixed(1)}px,${y.toFixed(1)}px) translate(-50%,-130%)`;
  }

  dispose(): void {
    this.viewer.scene.remove(this.group);
    for (const object of [this.line, this.dots]) {
      object.geometry.dispose();
      (object.material as LineBasicMaterial | PointsMaterial).dispose();
    }
    this.label.remove();
  }
}
