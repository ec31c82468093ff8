import { NodeIO } from '@gltf-transform/core';
import type { Frame } from 'playwright-core';
import { PNG } from 'pngjs';
import type { PointSource } from './point-cloud-samples.js';

/**
 * What test/browser/viewer-tools.test.ts measures on (docs/viewer.md, "Tests and the benchmark"):
 * a cloud of two parallel planes, where its points show on the framed viewer's canvas, and the
 * canvas's pixels.
 */
export type Vector3 = { x: number; y: number; z: number };
export type Camera = { position: Vector3; target: Vector3; fov: number };
export type Recorded = { name: string; payload: any };

/** Two vertical planes exactly 10.000 m apart (y = 0 and y = 10), 20 m along x and 10 m high, a point every 0.1 m. */
export const ORIGIN = { x: 500_000, y: 4_000_000, z: 100 };
export const COLUMNS = 201;
export const ROWS = 101;
export const PER_PLANE = COLUMNS * ROWS;
export const PLANES: PointSource = {
  origin: ORIGIN,
  pointAt: (i) => {
    const plane = Math.floor(i / PER_PLANE);
    const k = i % PER_PLANE;
    return {
      x: ORIGIN.x + (k % COLUMNS) * 0.1,
      y: ORIGIN.y + plane * 10,
      z: ORIGIN.z + Math.floor(k / COLUMNS) * 0.1,
      r: plane ? 255 : 40,
      g: 200,
      b: plane ? 40 : 255,
      intensity: 1000,
    };
  },
};
export const at = (x: number, y: number, z: number): Vector3 => ({ x: ORIGIN.x + x, y: ORIGIN.y + y, z: ORIGIN.z + z });
/** The iframe of parentPage: 800 × 600 at the page's top left. */
export const WIDTH = 800;
export const HEIGHT = 600;

/** Where a twin point shows in a view of `width` × `height` pixels (parentPage's iframe by default): the camera's projection (Z up, as the viewer's). */
export function screenOf(point: Vector3, camera: Camera, width = WIDTH, height = HEIGHT): { x: number; y: number } {
  const sub = (a: Vector3, b: Vector3) => ({ x: a.x - b.x, y: a.y - b.y, z: a.z - b.z });
  const dot = (a: Vector3, b: Vector3) => a.x * b.x + a.y * b.y + a.z * b.z;
  const cross = (a: Vector3, b: Vector3) => ({ x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x });
  const unit = (a: Vector3) => {
    const length = Math.hypot(a.x, a.y, a.z);
    return { x: a.x / length, y: a.y / length, z: a.z / length };
  };
  const forward = unit(sub(camera.target, camera.position));
  const right = unit(cross(forward, { x: 0, y: 0, z: 1 }));
  const up = cross(right, forward);
  const d = sub(point, camera.position);
  const tan = Math.tan((camera.fov * Math.PI) / 360);
  const ndcX = dot(d, right) / (dot(d, forward) * tan * (width / height));
  const ndcY = dot(d, up) / (dot(d, forward) * tan);
  return { x: ((ndcX + 1) / 2) * width, y: ((1 - ndcY) / 2) * height };
}

/**
 * The inverse of screenOf on the plane z = `z`: the twin point a pixel of the view shows there
 * (where the ray through the pixel meets the plane), as the viewer casts it.
 */
export function planePointAt(x: number, y: number, camera: Camera, z: number, width = WIDTH, height = HEIGHT): Vector3 {
  const sub = (a: Vector3, b: Vector3) => ({ x: a.x - b.x, y: a.y - b.y, z: a.z - b.z });
  const cross = (a: Vector3, b: Vector3) => ({ x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x });
  const unit = (a: Vector3) => {
    const length = Math.hypot(a.x, a.y, a.z);
    return { x: a.x / length, y: a.y / length, z: a.z / length };
  };
  const forward = unit(sub(camera.target, camera.position));
  const right = unit(cross(forward, { x: 0, y: 0, z: 1 }));
  const up = cross(right, forward);
  const tan = Math.tan((camera.fov * Math.PI) / 360);
  const ndcX = ((2 * x) / width - 1) * tan * (width / height);
  const ndcY = (1 - (2 * y) / height) * tan;
  const ray = {
    x: forward.x + right.x * ndcX + up.x * ndcY,
    y: forward.y + right.y * ndcX + up.y * ndcY,
    z: forward.z + right.z * ndcX + up.z * ndcY,
  };
  const t = (z - camera.position.z) / ray.z;
  return { x: camera.position.x + ray.x * t, y: camera.position.y + ray.y * t, z };
}

/** The viewer canvas's pixels (RGBA, 800 × 600 at a device pixel ratio of 1). */
export async function canvasPixels(frame: Frame): Promise<Buffer> {
  const dataUrl = await frame.evaluate(() =>
    (document.querySelector('#rdp-viewer canvas') as HTMLCanvasElement).toDataURL('image/png'),
  );
  return PNG.sync.read(Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64')).data;
}

/** The pixels of a (2r+1)-square around (x, y) that are not the background (#202428). */
export function paintedAround(pixels: Buffer, x: number, y: number, r = 3): number {
  let painted = 0;
  for (let j = Math.round(y) - r; j <= Math.round(y) + r; j += 1) {
    for (let i = Math.round(x) - r; i <= Math.round(x) + r; i += 1) {
      const k = (j * WIDTH + i) * 4;
      if (Math.abs(pixels[k]! - 0x20) + Math.abs(pixels[k + 1]! - 0x24) + Math.abs(pixels[k + 2]! - 0x28) > 12) painted += 1;
    }
  }
  return painted;
}

export function paintedPixels(pixels: Buffer): number {
  let painted = 0;
  for (let k = 0; k < pixels.length; k += 4) {
    if (Math.abs(pixels[k]! - 0x20) + Math.abs(pixels[k + 1]! - 0x24) + Math.abs(pixels[k + 2]! - 0x28) > 12) painted += 1;
  }
  return painted;
}

export function differingPixels(a: Buffer, b: Buffer): number {
  let differing = 0;
  for (let k = 0; k < a.length; k += 4)
    if (Math.abs(a[k]! - b[k]!) + Math.abs(a[k + 1]! - b[k + 1]!) + Math.abs(a[k + 2]! - b[k + 2]!) > 30) differing += 1;
  return differing;
}

/**
 * A tile of the platform's with `_INTENSITY` (0.5) and `_CLASSIFICATION` (2 for its first half of
 * points, 6 for the rest) added, as tiles of a scan that has them carry (docs/design/measurements.md,
 * "Tile attributes"): the tiles this branch's tiler writes have neither.
 */
export async function withScanAttributes(glb: Buffer): Promise<Uint8Array> {
  const io = new NodeIO();
  const document = await io.readBinary(new Uint8Array(glb));
  const buffer = document.getRoot().listBuffers()[0]!;
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const count = primitive.getAttribute('POSITION')!.getCount();
      const intensity = new Float32Array(count).fill(0.5);
      const classes = new Uint8Array(count).map((_, i) => (i < count / 2 ? 2 : 6));
      primitive.setAttribute('_INTENSITY', document.createAccessor().setType('SCALAR').setArray(intensity).setBuffer(buffer));
      primitive.setAttribute('_CLASSIFICATION', document.createAccessor().setType('SCALAR').setArray(classes).setBuffer(buffer));
    }
  }
  return io.writeBinary(document);
}
