import { crsOfText, type DeclaredCrs } from '../../../domain/georeferencing/declared-crs.js';
import { notCompatible } from '../../processing-error.js';
import type { PointAttribute, PointBatch, PointCloudReader } from '../point-cloud.js';
import { FieldStream } from './bytestream.js';
import { E57PagedFile, PAGE_SIZE, physicalToLogical } from './paged-file.js';
import { child, parseXml, type XmlElement } from './xml-lite.js';

/**
 * E57 (ASTM E2807): file header, XML section, and for each scan in /data3D a compressed
 * vector of points in the bitpack codec. Cartesian coordinates (Float or scaled integers),
 * optional colors and intensity, the scan's pose applied. Spherical-only scans and other
 * codecs are refused with the reason.
 */
const FILE_HEADER_BYTES = 48;
const SECTION_HEADER_BYTES = 32;

interface Scan {
  pointsOffset: number;
  recordCount: number;
  prototype: XmlElement[];
  rotation: [number, number, number, number] | undefined;
  translation: [number, number, number] | undefined;
  /** The scan's intensityLimits, when it declares them: its intensity is scaled from them to 0..1. */
  intensityLimits: [number, number] | undefined;
}

interface E57Layout {
  scans: Scan[];
  attributes: PointAttribute[];
  /** Every scan has a `classification` field (class codes come with the batches: point-cloud.ts). */
  classification: boolean;
  pointCount: number;
  crs?: DeclaredCrs;
}

async function readLayout(path: string): Promise<E57Layout> {
  const file = await E57PagedFile.open(path);
  try {
    const header = await file.read(0, FILE_HEADER_BYTES);
    if (header.toString('latin1', 0, 8) !== 'ASTM-E57') throw notCompatible('The file is not E57: its signature is missing');
    const major = header.readUInt32LE(8);
    if (major !== 1) throw notCompatible(`E57 version ${major} is not supported`);
    if (Number(header.readBigUInt64LE(40)) !== PAGE_SIZE)
      throw notCompatible('E57 pages other than 1024 bytes are not supported');
    const xmlOffset = physicalToLogical(Number(header.readBigUInt64LE(24)));
    const xmlLength = Number(header.readBigUInt64LE(32));
    if (xmlLength <= 0 || xmlLength > 64 * 1024 * 1024) throw notCompatible('The E57 XML section length is not plausible');
    let root: XmlElement;
    try {
      root = parseXml((await file.read(xmlOffset, xmlLength)).toString('utf8'));
    } catch (error) {
      if (error instanceof Error && error.name === 'ProcessingError') throw error;
      throw notCompatible(`The E57 XML section is malformed: ${(error as Error).message}`);
    }
    return layoutOf(root);
  } finally {
    await file.close();
  }
}

function numberAt(element: XmlElement | undefined, name: string, fallback: number): number {
  const value = element && child(element, name);
  return value ? Number(value.text.trim()) : fallback;
}

function layoutOf(root: XmlElement): E57Layout {
  if (root.name !== 'e57Root') throw notCompatible('The E57 XML has no e57Root element');
  const data3D = child(root, 'data3D');
  const scans: Scan[] = [];
  for (const scan of data3D?.children ?? []) {
    const points = child(scan, 'points');
    const prototype = points && child(points, 'prototype');
    if (points?.attributes['type'] !== 'CompressedVector' || !prototype) {
      throw notCompatible('An E57 scan has no compressed vector of points');
    }
    const names = prototype.children.map((field) => field.name);
    if (!['cartesianX', 'cartesianY', 'cartesianZ'].every((name) => names.includes(name))) {
      throw notCompatible(
        names.includes('sphericalRange')
          ? 'E57 scans with spherical coordinates only are not supported: cartesianX/Y/Z are required'
          : 'An E57 scan has no cartesianX, cartesianY and cartesianZ fields',
      );
    }
    const codecs = child(points, 'codecs');
    if (codecs && codecs.children.length > 0) throw notCompatible('E57 codecs other than bitpack are not supported');
    const limits = child(scan, 'intensityLimits');
    const intensityLimits: [number, number] | undefined =
      limits && child(limits, 'intensityMinimum') && child(limits, 'intensityMaximum')
        ? [numberAt(limits, 'intensityMinimum', 0), numberAt(limits, 'intensityMaximum', 1)]
        : undefined;
    const pose = child(scan, 'pose');
    const rotation = pose && child(pose, 'rotation');
    const translation = pose && child(pose, 'translation');
    scans.push({
      pointsOffset: Number(points.attributes['fileOffset']),
      recordCount: Number(points.attributes['recordCount']),
      prototype: prototype.children,
      rotation: rotation
        ? [numberAt(rotation, 'w', 1), numberAt(rotation, 'x', 0), numberAt(rotation, 'y', 0), numberAt(rotation, 'z', 0)]
        : undefined,
      translation: translation
        ? [numberAt(translation, 'x', 0), numberAt(translation, 'y', 0), numberAt(translation, 'z', 0)]
        : undefined,
      intensityLimits: intensityLimits?.every(Number.isFinite) ? intensityLimits : undefined,
    });
  }
  for (const scan of scans) {
    if (!Number.isSafeInteger(scan.pointsOffset) || !Number.isSafeInteger(scan.recordCount) || scan.recordCount < 0) {
      throw notCompatible('An E57 scan has a bad fileOffset or recordCount');
    }
  }
  const every = (name: string) => scans.length > 0 && scans.every((s) => s.prototype.some((f) => f.name === name));
  const attributes: PointAttribute[] = ['position'];
  if (every('colorRed') && every('colorGreen') && every('colorBlue')) attributes.push('color');
  if (every('intensity')) attributes.push('intensity');
  // Not in ASTM E2807's point fields, but some writers add it as an extension field by this name.
  const classification = every('classification');
  const coordinateMetadata = child(root, 'coordinateMetadata');
  const crs = coordinateMetadata && crsOfText(coordinateMetadata.text, 'e57');
  return {
    scans,
    attributes,
    classification,
    pointCount: scans.reduce((sum, s) => sum + s.recordCount, 0),
    ...(crs ? { crs } : {}),
  };
}

export async function openE57(path: string): Promise<PointCloudReader> {
  const layout = await readLayout(path);
  const intensityRange = layout.attributes.includes('intensity') ? sharedIntensityRange(layout.scans) : undefined;
  return {
    header: {
      format: 'e57',
      pointCount: layout.pointCount,
      attributes: layout.attributes,
      ...(intensityRange ? { intensityRange } : {}),
      ...(layout.crs ? { crs: layout.crs } : {}),
    },
    batches: () => e57Batches(path, layout),
  };
}

/**
 * The intensity range the scans declare (intensityLimits, else an integer field's bounds), when
 * every scan declares the same one; otherwise none, and the points' own min and max are used.
 */
function sharedIntensityRange(scans: Scan[]): [number, number] | undefined {
  const ranges = scans.map((scan) => {
    if (scan.intensityLimits) return scan.intensityLimits;
    const field = scan.prototype.find((element) => element.name === 'intensity');
    return field && new FieldStream(field).range();
  });
  const [first] = ranges;
  if (!first || first[1] <= first[0]) return undefined;
  return ranges.every((range) => range && range[0] === first[0] && range[1] === first[1]) ? first : undefined;
}

async function* e57Batches(path: string, layout: E57Layout): AsyncGenerator<PointBatch> {
  const file = await E57PagedFile.open(path);
  try {
    for (const scan of layout.scans) yield* scanBatches(file, scan, layout.attributes);
  } finally {
    await file.close();
  }
}

async function* scanBatches(file: E57PagedFile, scan: Scan, attributes: PointAttribute[]): AsyncGenerator<PointBatch> {
  const fields = scan.prototype.map((element) => new FieldStream(element));
  const field = (name: string) => fields.find((f) => f.name === name);
  const section = await file.read(physicalToLogical(scan.pointsOffset), SECTION_HEADER_BYTES);
  if (section.readUInt8(0) !== 1) throw notCompatible('The E57 points do not start with a compressed vector section');
  let packet = physicalToLogical(Number(section.readBigUInt64LE(16)));
  const colors = attributes.includes('color') ? (['colorRed', 'colorGreen', 'colorBlue'].map(field) as FieldStream[]) : undefined;
  const colorRanges = colors?.map((c): [number, number] => c.range() ?? [0, 1]);
  const intensity = attributes.includes('intensity') ? field('intensity') : undefined;
  const classification = field('classification');
  const invalid = field('cartesianInvalidState');
  let emitted = 0;
  while (emitted < scan.recordCount) {
    const head = await file.read(packet, 4);
    const type = head.readUInt8(0);
    const length = head.readUInt16LE(2) + 1;
    if (type === 1) {
      const body = await file.read(packet, length);
      const streams = body.readUInt16LE(4);
      if (streams !== fields.length)
        throw notCompatible(`An E57 data packet has ${streams} bytestreams for ${fields.length} fields`);
      let at = 6 + 2 * streams;
      for (let i = 0; i < streams; i += 1) {
        const size = body.readUInt16LE(6 + 2 * i);
        if (at + size > length) throw notCompatible('An E57 data packet is shorter than its bytestreams');
        fields[i]!.push(body.subarray(at, at + size));
        at += size;
      }
    } else if (type !== 0 && type !== 2) {
      throw notCompatible(`The E57 file has a packet of unknown type ${type}`);
    }
    packet += length;
    const ready = Math.min(scan.recordCount - emitted, ...fields.map((f) => f.available));
    if (ready > 0) {
      const values = new Map(fields.map((f) => [f, f.take(ready)]));
      const batch = toBatch(scan, ready, values, field, colors, colorRanges, intensity, invalid);
      if (classification) batch.classification = classOf(values.get(classification)!, values, invalid, ready);
      yield batch;
      emitted += ready;
    }
  }
}

/** The class codes of the points kept (not cartesianInvalidState 2), as bytes. */
function classOf(
  channel: number[],
  values: Map<FieldStream, number[]>,
  invalid: FieldStream | undefined,
  count: number,
): Uint8Array {
  const states = invalid && values.get(invalid);
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) if (states?.[i] !== 2) out.push(Math.max(0, Math.min(255, Math.round(channel[i]!))));
  return Uint8Array.from(out);
}

function toBatch(
  scan: Scan,
  count: number,
  values: Map<FieldStream, number[]>,
  field: (name: string) => FieldStream | undefined,
  colors: FieldStream[] | undefined,
  colorRanges: [number, number][] | undefined,
  intensity: FieldStream | undefined,
  invalid: FieldStream | undefined,
): PointBatch {
  const [xs, ys, zs] = ['cartesianX', 'cartesianY', 'cartesianZ'].map((name) => values.get(field(name)!)!) as [
    number[],
    number[],
    number[],
  ];
  const states = invalid && values.get(invalid);
  const keep: number[] = [];
  for (let i = 0; i < count; i += 1) if (states?.[i] !== 2) keep.push(i);
  const positions = new Float64Array(keep.length * 3);
  const [w, qx, qy, qz] = scan.rotation ?? [1, 0, 0, 0];
  const [tx, ty, tz] = scan.translation ?? [0, 0, 0];
  keep.forEach((i, n) => {
    const [x, y, z] = [xs[i]!, ys[i]!, zs[i]!];
    // p' = q p q* + t, expanded for a unit quaternion.
    positions[n * 3] = (1 - 2 * (qy * qy + qz * qz)) * x + 2 * (qx * qy - w * qz) * y + 2 * (qx * qz + w * qy) * z + tx;
    positions[n * 3 + 1] = 2 * (qx * qy + w * qz) * x + (1 - 2 * (qx * qx + qz * qz)) * y + 2 * (qy * qz - w * qx) * z + ty;
    positions[n * 3 + 2] = 2 * (qx * qz - w * qy) * x + 2 * (qy * qz + w * qx) * y + (1 - 2 * (qx * qx + qy * qy)) * z + tz;
  });
  const batch: PointBatch = { count: keep.length, positions };
  if (colors && colorRanges) {
    batch.colors = new Uint8Array(keep.length * 3);
    colors.forEach((color, c) => {
      const channel = values.get(color)!;
      const [low, high] = colorRanges[c]!;
      const span = high - low || 1;
      keep.forEach((i, n) => {
        batch.colors![n * 3 + c] = Math.round(((channel[i]! - low) / span) * 255);
      });
    });
  }
  if (intensity) {
    const channel = values.get(intensity)!;
    batch.intensity = Float32Array.from(keep, (i) => channel[i]!);
  }
  return batch;
}
