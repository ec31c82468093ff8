import { PNG } from 'pngjs';
import type { Bounds } from './point-clouds/point-cloud.js';
import type { ReservoirSample } from './point-clouds/reservoir-sample.js';

/**
 * A top-down view of a point sample drawn in software: the x/y extent fitted into a square
 * with a margin, points drawn lowest first so the top surface shows, each a 2x2 splat in its
 * own color or, without colors, a blue-to-red ramp by height.
 */
export const THUMBNAIL_SIZE = 256;
const BACKGROUND = [32, 36, 40];
const MARGIN = 8;

function heightColor(t: number): [number, number, number] {
  const stops: [number, number, number][] = [
    [40, 80, 200],
    [40, 180, 120],
    [230, 210, 60],
    [210, 60, 40],
  ];
  const scaled = Math.min(0.9999, Math.max(0, t)) * (stops.length - 1);
  const k = Math.floor(scaled);
  const f = scaled - k;
  const [a, b] = [stops[k]!, stops[k + 1]!];
  return [0, 1, 2].map((c) => Math.round(a[c]! + (b[c]! - a[c]!) * f)) as [number, number, number];
}

export function renderThumbnail(sample: ReservoirSample, bounds: Bounds, size = THUMBNAIL_SIZE): Buffer {
  const png = new PNG({ width: size, height: size });
  for (let p = 0; p < size * size; p += 1) {
    png.data[p * 4] = BACKGROUND[0]!;
    png.data[p * 4 + 1] = BACKGROUND[1]!;
    png.data[p * 4 + 2] = BACKGROUND[2]!;
    png.data[p * 4 + 3] = 255;
  }
  const [minX, minY, minZ] = bounds.min;
  const spanX = bounds.max[0] - minX;
  const spanY = bounds.max[1] - minY;
  const spanZ = bounds.max[2] - minZ || 1;
  const scale = (size - 2 * MARGIN - 2) / (Math.max(spanX, spanY) || 1);
  const offsetX = (size - spanX * scale) / 2;
  const offsetY = (size - spanY * scale) / 2;
  const order = Array.from({ length: sample.size }, (_, i) => i).sort(
    (a, b) => sample.positions[a * 3 + 2]! - sample.positions[b * 3 + 2]! || a - b,
  );
  for (const i of order) {
    const px = Math.floor(offsetX + (sample.positions[i * 3]! - minX) * scale);
    // North up: y grows toward the top of the image.
    const py = Math.floor(size - 1 - (offsetY + (sample.positions[i * 3 + 1]! - minY) * scale));
    const color = sample.hasColors
      ? [sample.colors[i * 3]!, sample.colors[i * 3 + 1]!, sample.colors[i * 3 + 2]!]
      : heightColor((sample.positions[i * 3 + 2]! - minZ) / spanZ);
    for (let dy = 0; dy < 2; dy += 1) {
      for (let dx = 0; dx < 2; dx += 1) {
        const x = px + dx;
        const y = py - dy;
        if (x < 0 || y < 0 || x >= size || y >= size) continue;
        const at = (y * size + x) * 4;
        png.data[at] = color[0]!;
        png.data[at + 1] = color[1]!;
        png.data[at + 2] = color[2]!;
      }
    }
  }
  return PNG.sync.write(png);
}
