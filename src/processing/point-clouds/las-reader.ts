import { open, stat } from 'node:fs/promises';
import { notCompatible } from '../processing-error.js';
import { readLasCrs } from './las-crs.js';
import {
  LAS_14_HEADER_BYTES,
  LAS_INTENSITY_RANGE,
  type LasHeader,
  LasRecordDecoder,
  lasAttributes,
  parseLasHeader,
} from './las-header.js';
import { BATCH_POINTS, type PointBatch, type PointCloudReader } from './point-cloud.js';

export async function readLasHeader(path: string): Promise<LasHeader> {
  const file = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(LAS_14_HEADER_BYTES);
    const { bytesRead } = await file.read(bytes, 0, bytes.length, 0);
    return parseLasHeader(bytes.subarray(0, bytesRead));
  } finally {
    await file.close();
  }
}

/** Uncompressed LAS 1.0–1.4, point formats 0–10: fixed-length records read in large slices. */
export async function openLas(path: string): Promise<PointCloudReader> {
  const header = await readLasHeader(path);
  if (header.compressed) throw notCompatible('The LAS file is LASzip-compressed: it is a LAZ file');
  const { size } = await stat(path);
  const needed = header.pointDataOffset + header.pointCount * header.recordLength;
  if (size < needed) {
    throw notCompatible(`The LAS file is truncated: ${header.pointCount} points need ${needed} bytes, it has ${size}`);
  }
  const crs = await readLasCrs(path, header);
  return {
    header: {
      format: 'las',
      pointCount: header.pointCount,
      declaredBounds: header.bounds,
      attributes: lasAttributes(header),
      intensityRange: LAS_INTENSITY_RANGE,
      ...(crs ? { crs } : {}),
    },
    batches: () => lasBatches(path, header),
  };
}

async function* lasBatches(path: string, header: LasHeader): AsyncGenerator<PointBatch> {
  const decoder = new LasRecordDecoder(header);
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(BATCH_POINTS * header.recordLength);
    let done = 0;
    while (done < header.pointCount) {
      const count = Math.min(BATCH_POINTS, header.pointCount - done);
      const length = count * header.recordLength;
      const { bytesRead } = await file.read(buffer, 0, length, header.pointDataOffset + done * header.recordLength);
      if (bytesRead < length) throw notCompatible('The LAS file ended before its declared point count');
      yield decoder.decode(buffer, 0, count, header.recordLength);
      done += count;
    }
  } finally {
    await file.close();
  }
}
