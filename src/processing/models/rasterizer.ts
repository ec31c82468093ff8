import { PNG } from 'pngjs';
import { type MeshBounds, meshBounds, type TriangleMesh } from './triangle-mesh.js';

export const MODEL_THUMBNAIL_SIZE = 256;
const BACKGROUND = [32, 36, 40] as const;
const BASE_COLOR = [196, 204, 214] as const;
const AMBIENT = 0.25;
const MARGIN = 12;

/**
 * The thumbnail: the shaded model from a fixed three-quarter view (from the front right, above,
 * glTF's +Y up), drawn in software with a z-buffer and Lambert shading, orthographic, fitted to
 * the bounding sphere so every model fills the frame alike. Faces are lit from both sides: an
 * original's winding is not always outward.
 */
export function renderModelThumbnail(mesh: TriangleMesh, size = MODEL_THUMBNAIL_SIZE): Buffer {
  const { positions, indices } = mesh;
  const bounds: MeshBounds = meshBounds(positions);
  const center = [0, 1, 2].map((c) => (bounds.min[c]! + bounds.max[c]!) / 2) as [number, number, number];
  const radius = Math.hypot(...([0, 1, 2].map((c) => bounds.max[c]! - bounds.min[c]!) as [number, number, number])) / 2 || 1;
  const toEye = normalize([1, 0.8, 1]);
  const right = normalize(cross([0, 1, 0], toEye));
  const up = cross(toEye, right);
  const light = normalize([
    0.4 * right[0] + 0.6 * up[0] + toEye[0],
    0.4 * right[1] + 0.6 * up[1] + toEye[1],
    0.4 * right[2] + 0.6 * up[2] + toEye[2],
  ]);
  const scale = (size / 2 - MARGIN) / radius;

  // Screen coordinates of every vertex once: x right, y down, depth growing toward the eye.
  const vertices = positions.length / 3;
  const sx = new Float32Array(vertices);
  const sy = new Float32Array(vertices);
  const sz = new Float32Array(vertices);
  for (let v = 0; v < vertices; v += 1) {
    const x = positions[v * 3]! - center[0];
    const y = positions[v * 3 + 1]! - center[1];
    const z = positions[v * 3 + 2]! - center[2];
    sx[v] = size / 2 + (x * right[0] + y * right[1] + z * right[2]) * scale;
    sy[v] = size / 2 - (x * up[0] + y * up[1] + z * up[2]) * scale;
    sz[v] = x * toEye[0] + y * toEye[1] + z * toEye[2];
  }

  const depth = new Float32Array(size * size).fill(-Infinity);
  const shade = new Float32Array(size * size).fill(-1);
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t]!;
    const b = indices[t + 1]!;
    const c = indices[t + 2]!;
    const brightness = lambert(positions, a, b, c, light);
    const ax = sx[a]!;
    const ay = sy[a]!;
    const bx = sx[b]!;
    const by = sy[b]!;
    const cx = sx[c]!;
    const cy = sy[c]!;
    const area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area === 0) continue;
    const minX = Math.max(0, Math.floor(Math.min(ax, bx, cx)));
    const maxX = Math.min(size - 1, Math.ceil(Math.max(ax, bx, cx)));
    const minY = Math.max(0, Math.floor(Math.min(ay, by, cy)));
    const maxY = Math.min(size - 1, Math.ceil(Math.max(ay, by, cy)));
    for (let py = minY; py <= maxY; py += 1) {
      for (let px = minX; px <= maxX; px += 1) {
        const x = px + 0.5;
        const y = py + 0.5;
        // Barycentric weights by edge functions; the sign of the area makes both windings draw.
        const wa = ((bx - x) * (cy - y) - (by - y) * (cx - x)) / area;
        const wb = ((cx - x) * (ay - y) - (cy - y) * (ax - x)) / area;
        const wc = 1 - wa - wb;
        if (wa < 0 || wb < 0 || wc < 0) continue;
        const z = wa * sz[a]! + wb * sz[b]! + wc * sz[c]!;
        const at = py * size + px;
        if (z <= depth[at]!) continue;
        depth[at] = z;
        shade[at] = brightness;
      }
    }
  }

  const png = new PNG({ width: size, height: size });
  for (let at = 0; at < size * size; at += 1) {
    const s = shade[at]!;
    for (let c = 0; c < 3; c += 1)
      png.data[at * 4 + c] = s < 0 ? BACKGROUND[c]! : Math.round(BASE_COLOR[c]! * (AMBIENT + (1 - AMBIENT) * s));
    png.data[at * 4 + 3] = 255;
  }
  return PNG.sync.write(png);
}

/** |cos| between the face's normal and the light: 0 for a degenerate face. */
function lambert(positions: Float32Array, a: number, b: number, c: number, light: number[]): number {
  const ux = positions[b * 3]! - positions[a * 3]!;
  const uy = positions[b * 3 + 1]! - positions[a * 3 + 1]!;
  const uz = positions[b * 3 + 2]! - positions[a * 3 + 2]!;
  const vx = positions[c * 3]! - positions[a * 3]!;
  const vy = positions[c * 3 + 1]! - positions[a * 3 + 1]!;
  const vz = positions[c * 3 + 2]! - positions[a * 3 + 2]!;
  const nx = uy * vz - uz * vy;
  const ny = uz * vx - ux * vz;
  const nz = ux * vy - uy * vx;
  const length = Math.hypot(nx, ny, nz);
  return length === 0 ? 0 : Math.abs(nx * light[0]! + ny * light[1]! + nz * light[2]!) / length;
}

function normalize(v: number[]): [number, number, number] {
  const length = Math.hypot(v[0]!, v[1]!, v[2]!);
  return [v[0]! / length, v[1]! / length, v[2]! / length];
}

function cross(u: number[], v: number[]): [number, number, number] {
  return [u[1]! * v[2]! - u[2]! * v[1]!, u[2]! * v[0]! - u[0]! * v[2]!, u[0]! * v[1]! - u[1]! * v[0]!];
}
