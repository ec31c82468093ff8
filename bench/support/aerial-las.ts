import { open } from 'node:fs/promises';

/**
 * An aerial LiDAR survey written as LAS 1.2 straight to disk, a slice at a time, so a billion
 * points never sit in memory: the bench of a cloud too large for a test (bench/point-cloud-scale.ts).
 *
 * The points are in acquisition order. Flight lines run along x, back and forth, their swaths
 * overlapping by 30%; a scan line sweeps across the swath, zigzagging like an oscillating
 * mirror; the aircraft's speed and roll vary along the line, so the density does too (about 8
 * points a square metre under one swath, twice that where two overlap, ±35% with the speed).
 * Each return lands on hilly ground, a flat river, the pitched roofs of a town's buildings or
 * the canopy, trunks and floor of woods (vegetation gives the cloud height, the rest is a
 * surface), classified ground 2, vegetation 3 and 5, building 6, water 9, coloured and with an
 * intensity by what it hit. More points cover a larger survey at the same density, as a
 * larger survey would. Deterministic in the point count.
 */
export const SURVEY_ORIGIN = { x: 600_000, y: 5_750_000, z: 0 };
const SWATH = 600;
const STRIP_SPACING = SWATH * 0.7;
const PULSES_PER_LINE = 2_400;
const LINE_SPACING = 0.5;
const SCALE = 0.001;
const HEADER_BYTES = 227;
/** Point record formats written: 2 (xyz, intensity, class, RGB; 26 bytes) or 3 (with GPS time; 34 bytes). */
const RECORD_LENGTH = { 2: 26, 3: 34 } as const;
const SLICE_POINTS = 262_144;

export interface AerialLas {
  path: string;
  points: number;
  bytes: number;
  /** Survey extent in metres (x along the flight lines, y across them). */
  extent: [number, number];
}

/** A hash of integers to [0, 1): the land cover of a cell, the jitter of a return. */
function hash(a: number, b: number, salt: number): number {
  let t = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(salt, 0xc2b2ae3d)) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function ground(x: number, y: number): number {
  return 40 + 25 * Math.sin(x / 1100) * Math.cos(y / 1500) + 6 * Math.sin(x / 190 + y / 260) + 0.002 * x;
}

interface Return {
  z: number;
  classification: number;
  intensity: number;
  r: number;
  g: number;
  b: number;
}

/** What the pulse of index `i` at (x, y) hits. */
function hit(x: number, y: number, i: number, out: Return): void {
  const floor = ground(x, y);
  const jitter = (hash(i, 7, 1) - 0.5) * 0.06;
  const riverY = 1_200 + 300 * Math.sin(x / 1_700);
  if (Math.abs(y - riverY) < 35) {
    set(out, ground(x, riverY) - 2 + jitter * 0.2, 9, 250, 70, 90, 110);
    return;
  }
  const cx = Math.floor(x / 40);
  const cy = Math.floor(y / 40);
  const cover = hash(cx, cy, 2);
  const town = Math.sin(x / 2_500) * Math.cos(y / 2_100) > 0.3;
  const fx = x / 40 - cx;
  const fy = y / 40 - cy;
  if (town && cover < 0.6 && fx > 0.15 && fx < 0.85 && fy > 0.15 && fy < 0.85) {
    const height = 6 + 24 * hash(cx, cy, 3);
    const ridge = 3 * (1 - Math.abs((fx - 0.5) / 0.35));
    set(out, ground(cx * 40 + 20, cy * 40 + 20) + height + ridge + jitter, 6, 1_800 + 600 * cover, 150, 80 + 60 * cover, 70);
    return;
  }
  const woods = !town && hash(Math.floor(x / 200), Math.floor(y / 200), 4) < 0.35;
  if (woods) {
    const tree = 12 + 13 * hash(Math.floor(x / 8), Math.floor(y / 8), 5);
    const layer = hash(i, 11, 6);
    if (layer < 0.55) set(out, floor + tree * (0.82 + 0.18 * hash(i, 13, 7)), 5, 900, 40, 110, 45);
    else if (layer < 0.8) set(out, floor + tree * hash(i, 17, 8) * 0.8, 3, 600, 60, 90, 50);
    else set(out, floor + jitter, 2, 400, 90, 80, 60);
    return;
  }
  const field = hash(Math.floor(x / 120), Math.floor(y / 90), 9);
  set(out, floor + jitter, 2, 1_000 + 1_500 * field, 120 + 80 * field, 140, 80 + 40 * field);
}

function set(out: Return, z: number, classification: number, intensity: number, r: number, g: number, b: number): void {
  out.z = z;
  out.classification = classification;
  out.intensity = Math.round(intensity);
  out.r = Math.round(r);
  out.g = Math.round(g);
  out.b = Math.round(b);
}

/** Writes the survey of `points` points to `path`; the header's bounds are written last, once known. */
export async function writeAerialLas(path: string, points: number, pointFormat: 2 | 3 = 2): Promise<AerialLas> {
  if (points > 0xffff_ffff) throw new Error('LAS 1.2 counts points in 32 bits');
  const recordLength = RECORD_LENGTH[pointFormat];
  const colorAt = pointFormat === 3 ? 28 : 20;
  const lines = Math.ceil(points / PULSES_PER_LINE);
  const strips = Math.max(1, Math.round(Math.sqrt((lines * LINE_SPACING) / STRIP_SPACING)));
  const linesPerStrip = Math.ceil(lines / strips);
  const stripLength = linesPerStrip * LINE_SPACING;
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  const file = await open(path, 'w');
  const slices = [Buffer.alloc(SLICE_POINTS * recordLength), Buffer.alloc(SLICE_POINTS * recordLength)];
  const writing: (Promise<unknown> | undefined)[] = [undefined, undefined];
  const out: Return = { z: 0, classification: 0, intensity: 0, r: 0, g: 0, b: 0 };
  let along = 0;
  let lineOfStrip = -1;
  let strip = 0;
  let written = 0;
  try {
    for (let start = 0, turn = 0; start < points; start += SLICE_POINTS, turn ^= 1) {
      await writing[turn];
      const slice = slices[turn]!;
      const view = new DataView(slice.buffer, slice.byteOffset, slice.byteLength);
      const n = Math.min(SLICE_POINTS, points - start);
      for (let k = 0; k < n; k += 1) {
        const i = start + k;
        const pulse = i % PULSES_PER_LINE;
        if (pulse === 0) {
          const line = i / PULSES_PER_LINE;
          strip = Math.floor(line / linesPerStrip);
          const next = line - strip * linesPerStrip;
          if (next === 0) along = 0;
          else along += LINE_SPACING * (1 + 0.35 * Math.sin(along / 140 + strip));
          lineOfStrip = next;
        }
        const u = (pulse + 0.5) / PULSES_PER_LINE;
        const sweep = lineOfStrip % 2 === 0 ? u : 1 - u;
        const x = strip % 2 === 0 ? along : stripLength - along;
        const roll = 25 * Math.sin(along / 400 + strip * 1.3);
        const y = strip * STRIP_SPACING + SWATH * (sweep - 0.5) + roll;
        hit(x, y, i, out);
        const at = k * recordLength;
        const qx = Math.round(x / SCALE);
        const qy = Math.round(y / SCALE);
        const qz = Math.round(out.z / SCALE);
        view.setInt32(at, qx, true);
        view.setInt32(at + 4, qy, true);
        view.setInt32(at + 8, qz, true);
        if (qx < min[0]!) min[0] = qx;
        if (qx > max[0]!) max[0] = qx;
        if (qy < min[1]!) min[1] = qy;
        if (qy > max[1]!) max[1] = qy;
        if (qz < min[2]!) min[2] = qz;
        if (qz > max[2]!) max[2] = qz;
        view.setUint16(at + 12, out.intensity, true);
        view.setUint8(at + 14, 0b0000_1001); // return 1 of 1
        view.setUint8(at + 15, out.classification);
        view.setInt8(at + 16, Math.round((sweep - 0.5) * 40));
        view.setUint8(at + 17, 0);
        view.setUint16(at + 18, strip + 1, true);
        if (pointFormat === 3) view.setFloat64(at + 20, i / (PULSES_PER_LINE * 200), true);
        view.setUint16(at + colorAt, out.r * 257, true);
        view.setUint16(at + colorAt + 2, out.g * 257, true);
        view.setUint16(at + colorAt + 4, out.b * 257, true);
      }
      const length = n * recordLength;
      writing[turn] = file.write(slice, 0, length, HEADER_BYTES + written);
      written += length;
    }
    await Promise.all(writing);
    await file.write(header(points, pointFormat, min, max), 0, HEADER_BYTES, 0);
  } finally {
    await file.close();
  }
  return {
    path,
    points,
    bytes: HEADER_BYTES + written,
    extent: [(max[0]! - min[0]!) * SCALE, (max[1]! - min[1]!) * SCALE],
  };
}

function header(points: number, pointFormat: 2 | 3, min: number[], max: number[]): Buffer {
  const bytes = Buffer.alloc(HEADER_BYTES);
  bytes.write('LASF', 0, 'latin1');
  bytes.writeUInt8(1, 24);
  bytes.writeUInt8(2, 25);
  bytes.write('rdp aerial survey', 26, 'latin1');
  bytes.write('rdp bench', 58, 'latin1');
  bytes.writeUInt16LE(HEADER_BYTES, 94);
  bytes.writeUInt32LE(HEADER_BYTES, 96);
  bytes.writeUInt32LE(0, 100);
  bytes.writeUInt8(pointFormat, 104);
  bytes.writeUInt16LE(RECORD_LENGTH[pointFormat], 105);
  bytes.writeUInt32LE(points, 107);
  bytes.writeUInt32LE(points, 111); // all first returns
  for (let axis = 0; axis < 3; axis += 1) bytes.writeDoubleLE(SCALE, 131 + axis * 8);
  const origin = [SURVEY_ORIGIN.x, SURVEY_ORIGIN.y, SURVEY_ORIGIN.z];
  for (let axis = 0; axis < 3; axis += 1) {
    bytes.writeDoubleLE(origin[axis]!, 155 + axis * 8);
    bytes.writeDoubleLE(max[axis]! * SCALE + origin[axis]!, 179 + axis * 16);
    bytes.writeDoubleLE(min[axis]! * SCALE + origin[axis]!, 187 + axis * 16);
  }
  return bytes;
}
