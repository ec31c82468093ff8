import { open } from 'node:fs/promises';
import { createLazPerf } from 'laz-perf';
import { notCompatible } from '../processing-error.js';
import { LasRecordDecoder, lasAttributes } from './las-header.js';
import { readLasHeader } from './las-reader.js';
import { BATCH_POINTS, type PointBatch, type PointCloudReader } from './point-cloud.js';

/** The part of laz-perf's WASM module we use (its own typings need @types/emscripten). */
interface LazPerfModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  LASZip: new () => {
    open(pointer: number, length: number): void;
    getPoint(pointer: number): void;
    getCount(): number;
    getPointLength(): number;
    getPointFormat(): number;
    delete(): void;
  };
}

let lazPerf: Promise<LazPerfModule> | undefined;

function loadLazPerf(): Promise<LazPerfModule> {
  lazPerf ??= (createLazPerf as unknown as () => Promise<LazPerfModule>)();
  return lazPerf;
}

const COPY_SLICE = 1 << 20;

/**
 * LAZ through laz-perf (LASzip compiled to WASM). laz-perf decodes from its own heap, so the
 * compressed file is copied there in slices; memory grows with the compressed size (about a
 * tenth of the LAS), while decoded points still stream out in batches.
 */
export async function openLaz(path: string): Promise<PointCloudReader> {
  const header = await readLasHeader(path);
  if (!header.compressed) throw notCompatible('The file is an uncompressed LAS file, not LAZ');
  return {
    header: { format: 'laz', pointCount: header.pointCount, declaredBounds: header.bounds, attributes: lasAttributes(header) },
    batches: () => lazBatches(path),
  };
}

async function* lazBatches(path: string): AsyncGenerator<PointBatch> {
  const header = await readLasHeader(path);
  const module = await loadLazPerf();
  const file = await open(path, 'r');
  const { size } = await file.stat();
  const filePointer = module._malloc(size);
  const zip = new module.LASZip();
  let pointPointer = 0;
  try {
    const slice = Buffer.alloc(Math.min(COPY_SLICE, size));
    for (let at = 0; at < size; ) {
      const { bytesRead } = await file.read(slice, 0, Math.min(slice.length, size - at), at);
      if (bytesRead === 0) throw notCompatible('The LAZ file could not be read to its end');
      module.HEAPU8.set(slice.subarray(0, bytesRead), filePointer + at);
      at += bytesRead;
    }
    try {
      zip.open(filePointer, size);
    } catch (error) {
      throw notCompatible(`The LAZ file cannot be decompressed: ${lazMessage(error)}`);
    }
    const recordLength = zip.getPointLength();
    const count = zip.getCount();
    const decoder = new LasRecordDecoder({ ...header, pointFormat: zip.getPointFormat() & 0x3f, recordLength });
    pointPointer = module._malloc(recordLength);
    const records = Buffer.alloc(BATCH_POINTS * recordLength);
    for (let done = 0; done < count; ) {
      const batch = Math.min(BATCH_POINTS, count - done);
      for (let i = 0; i < batch; i += 1) {
        try {
          zip.getPoint(pointPointer);
        } catch (error) {
          throw notCompatible(`The LAZ file is corrupt at point ${done + i}: ${lazMessage(error)}`);
        }
        records.set(module.HEAPU8.subarray(pointPointer, pointPointer + recordLength), i * recordLength);
      }
      yield decoder.decode(records, 0, batch, recordLength);
      done += batch;
    }
  } finally {
    zip.delete();
    if (pointPointer) module._free(pointPointer);
    module._free(filePointer);
    await file.close();
  }
}

/** laz-perf's build throws C++ exceptions as bare numbers, without their text; say what we can. */
function lazMessage(error: unknown): string {
  return error instanceof Error ? error.message : 'laz-perf rejected the data (no LASzip description, or damaged data)';
}
