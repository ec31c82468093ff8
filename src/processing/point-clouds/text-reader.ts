import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { notCompatible } from '../processing-error.js';
import { BATCH_POINTS, type PointAttribute, type PointBatch, type PointCloudReader } from './point-cloud.js';

/**
 * XYZ and PTS text: one point a line, fields split by spaces, tabs, commas or semicolons.
 * XYZ columns: x y z, x y z i, x y z r g b, or x y z i r g b. PTS (Leica): a count line before
 * each scan, then x y z intensity r g b, intensity -2048..2047 (shifted to 0..4095 here) by the
 * common convention; writers also put 0..255 there. Neither is declared, so the header gives no
 * intensity range and the tiles map the points' own min..max to 0..1 (docs/processing.md).
 */
type Columns = { color: number | undefined; intensity: number | undefined };

function columnsOf(width: number): Columns {
  if (width >= 7) return { intensity: 3, color: 4 };
  if (width === 6) return { intensity: undefined, color: 3 };
  if (width >= 4) return { intensity: 3, color: undefined };
  return { intensity: undefined, color: undefined };
}

const SEPARATOR = /[\s,;]+/;

async function firstDataRow(path: string, format: 'xyz' | 'pts'): Promise<{ width: number; count?: number }> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  let count: number | undefined;
  try {
    for await (const raw of lines) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const fields = line.split(SEPARATOR);
      if (fields.length === 1 && format === 'pts') {
        count = (count ?? 0) + Number(fields[0]);
        continue;
      }
      return { width: fields.length, count };
    }
  } finally {
    lines.close();
  }
  throw notCompatible(`The ${format.toUpperCase()} file holds no points`);
}

export async function openText(path: string, format: 'xyz' | 'pts'): Promise<PointCloudReader> {
  const { width } = await firstDataRow(path, format);
  if (width < 3) throw notCompatible(`The ${format.toUpperCase()} file's points have fewer than three coordinates`);
  const columns = columnsOf(width);
  const attributes: PointAttribute[] = ['position'];
  if (columns.color !== undefined) attributes.push('color');
  if (columns.intensity !== undefined) attributes.push('intensity');
  return {
    // PTS count lines are declarations a file may get wrong; the count we report is what we read.
    header: { format, attributes },
    batches: () => textBatches(path, format, width, columns),
  };
}

function newBatch(columns: Columns): PointBatch {
  return {
    count: 0,
    positions: new Float64Array(BATCH_POINTS * 3),
    ...(columns.color !== undefined ? { colors: new Uint8Array(BATCH_POINTS * 3) } : {}),
    ...(columns.intensity !== undefined ? { intensity: new Float32Array(BATCH_POINTS) } : {}),
  };
}

function trimmed(batch: PointBatch): PointBatch {
  const n = batch.count;
  return {
    count: n,
    positions: batch.positions.subarray(0, n * 3),
    ...(batch.colors ? { colors: batch.colors.subarray(0, n * 3) } : {}),
    ...(batch.intensity ? { intensity: batch.intensity.subarray(0, n) } : {}),
  };
}

async function* textBatches(path: string, format: 'xyz' | 'pts', width: number, columns: Columns): AsyncGenerator<PointBatch> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  const shift = format === 'pts' ? 2048 : 0;
  let batch = newBatch(columns);
  let lineNumber = 0;
  try {
    for await (const raw of lines) {
      lineNumber += 1;
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const fields = line.split(SEPARATOR);
      if (fields.length === 1 && format === 'pts' && /^\d+$/.test(fields[0]!)) continue;
      if (fields.length !== width) {
        throw notCompatible(`Line ${lineNumber} has ${fields.length} fields where the file's points have ${width}`);
      }
      const values = fields.map(Number);
      if (values.some((v) => !Number.isFinite(v))) throw notCompatible(`Line ${lineNumber} holds a value that is not a number`);
      const i = batch.count;
      batch.positions[i * 3] = values[0]!;
      batch.positions[i * 3 + 1] = values[1]!;
      batch.positions[i * 3 + 2] = values[2]!;
      if (columns.color !== undefined && batch.colors) {
        for (let c = 0; c < 3; c += 1) batch.colors[i * 3 + c] = Math.max(0, Math.min(255, values[columns.color + c]!));
      }
      if (columns.intensity !== undefined && batch.intensity) batch.intensity[i] = values[columns.intensity]! + shift;
      batch.count += 1;
      if (batch.count === BATCH_POINTS) {
        yield batch;
        batch = newBatch(columns);
      }
    }
  } finally {
    lines.close();
  }
  if (batch.count > 0) yield trimmed(batch);
}
