import { writeFile } from 'node:fs/promises';

/** One point of a comparison's distances PLY: twin coordinates, its colour, its distance in metres. */
export interface DistancePoint {
  x: number;
  y: number;
  z: number;
  r: number;
  g: number;
  b: number;
  /** -1 beyond maxDistance; NaN where not computable (M3C2). */
  distance: number;
}

/**
 * Writes points as the comparison engine writes compared-distances.ply (docs/design/comparisons.md,
 * "Outputs"): binary little-endian, the vertex count zero-padded to 12 digits, `double x, y, z,
 * uchar red, green, blue, float distance`.
 */
export async function writeDistancesPly(path: string, points: readonly DistancePoint[]): Promise<void> {
  const header = [
    'ply',
    'format binary_little_endian 1.0',
    `element vertex ${String(points.length).padStart(12, '0')}`,
    'property double x',
    'property double y',
    'property double z',
    'property uchar red',
    'property uchar green',
    'property uchar blue',
    'property float distance',
    'end_header',
    '',
  ].join('\n');
  const stride = 3 * 8 + 3 + 4;
  const body = Buffer.alloc(points.length * stride);
  points.forEach((p, i) => {
    const at = i * stride;
    body.writeDoubleLE(p.x, at);
    body.writeDoubleLE(p.y, at + 8);
    body.writeDoubleLE(p.z, at + 16);
    body.writeUInt8(p.r, at + 24);
    body.writeUInt8(p.g, at + 25);
    body.writeUInt8(p.b, at + 26);
    body.writeFloatLE(p.distance, at + 27);
  });
  await writeFile(path, Buffer.concat([Buffer.from(header, 'latin1'), body]));
}
