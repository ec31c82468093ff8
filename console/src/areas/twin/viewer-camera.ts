import type { Vector3 } from './twin-api.js';
import type { CameraState } from './viewer-link.js';

/**
 * A camera that frames a measurement's points (the viewer's flyTo knows the objects it draws, and
 * saved measurements are not among them): looking at their middle from the direction the camera
 * looks now, far enough back to see them all.
 */
export function framingCamera(points: Vector3[], current: CameraState): CameraState {
  const count = Math.max(points.length, 1);
  const centre = points.reduce((sum, p) => ({ x: sum.x + p.x / count, y: sum.y + p.y / count, z: sum.z + p.z / count }), {
    x: 0,
    y: 0,
    z: 0,
  });
  const radius = Math.max(1, ...points.map((p) => Math.hypot(p.x - centre.x, p.y - centre.y, p.z - centre.z)));
  const away = {
    x: current.position.x - current.target.x,
    y: current.position.y - current.target.y,
    z: current.position.z - current.target.z,
  };
  const length = Math.hypot(away.x, away.y, away.z) || 1;
  // The distance at which a sphere of the radius fills the vertical field of view, with a margin.
  const distance = (radius * 1.5) / Math.sin(((current.fov || 60) * Math.PI) / 360);
  return {
    position: {
      x: centre.x + (away.x / length) * distance,
      y: centre.y + (away.y / length) * distance,
      z: centre.z + (away.z / length) * distance,
    },
    target: centre,
    fov: current.fov,
  };
}
