import { type FileHandle, open } from 'node:fs/promises';
import { createLazPerf } from 'laz-perf';
import { notCompatible } from '../processing-error.js';
import { type LasHeader, LasRecordDecoder, lasAttributes } from './las-header.js';
import { readLasHeader } from './las-reader.js';
import { decodeChunkTable, type LazChunk } from './laz-chunk-table.js';
import { BATCH_POINTS, type PointBatch, type PointCloudReader } from './point-cloud.js';

/** The part of laz-perf's WASM module we use (its own typings need @types/emscripten). */
interface LazPerfModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  ChunkDecoder: new () => {
    open(pointFormat: number, recordLength: number, pointer: number): void;
    getPoint(pointer: number): void;
    delete(): void;
  };
}

let lazPerf: Promise<LazPerfModule> | undefined;

function loadLazPerf(): Promise<LazPerfModule> {
  lazPerf ??= (createLazPerf as unknown as () => Promise<LazPerfModule>)();
  return lazPerf;
}

const LASZIP_USER_ID = 'laszip encoded';
const LASZIP_RECORD_ID = 22204;
const VARIABLE_CHUNKS = 0xffffffff;

interface LazLayout {
  header: LasHeader;
  chunks: LazChunk[];
  /** Where the first chunk starts: after the 8-byte chunk table offset. */
  firstChunk: number;
}

/**
 * LAZ through laz-perf (LASzip compiled to WASM), one chunk at a time: the chunk table gives
 * each chunk's size, a chunk is copied into the WASM heap and decoded by laz-perf's chunk
 * decoder, so memory is one chunk, not the file.
 */
export async function openLaz(path: string): Promise<PointCloudReader> {
  const layout = await readLazLayout(path);
  return {
    header: {
      format: 'laz',
      pointCount: layout.header.pointCount,
      declaredBounds: layout.header.bounds,
      attributes: lasAttributes(layout.header),
    },
    batches: () => lazBatches(path, layout),
  };
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await file.read(bytes, 0, length, position);
  if (bytesRead < length) throw notCompatible('The LAZ file ends before the data it declares');
  return bytes;
}

async function readLazLayout(path: string): Promise<LazLayout> {
  const header = await readLasHeader(path);
  if (!header.compressed) throw notCompatible('The file is an uncompressed LAS file, not LAZ');
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const vlrCount = (await readAt(file, 100, 4)).readUInt32LE(0);
    let at = header.headerSize;
    let chunkPoints: number | undefined;
    let compressor = -1;
    for (let i = 0; i < vlrCount && at + 54 <= header.pointDataOffset; i += 1) {
      const vlr = await readAt(file, at, 54);
      const length = vlr.readUInt16LE(20);
      if (vlr.toString('latin1', 2, 18).replace(/\0+$/, '') === LASZIP_USER_ID && vlr.readUInt16LE(18) === LASZIP_RECORD_ID) {
        const payload = await readAt(file, at + 54, Math.min(length, 34));
        compressor = payload.readUInt16LE(0);
        chunkPoints = payload.readUInt32LE(12);
      }
      at += 54 + length;
    }
    if (chunkPoints === undefined) throw notCompatible('The LAZ file has no LASzip description (VLR 22204)');
    if (compressor !== 2 && compressor !== 3) {
      throw notCompatible(`LAZ compressor ${compressor} is not supported: only chunked LASzip is read`);
    }
    let tableOffset = Number((await readAt(file, header.pointDataOffset, 8)).readBigInt64LE(0));
    // A writer that could not seek back leaves -1 here and the offset in the file's last 8 bytes.
    if (tableOffset === -1) tableOffset = Number((await readAt(file, size - 8, 8)).readBigInt64LE(0));
    if (!(tableOffset > header.pointDataOffset && tableOffset < size))
      throw notCompatible('The LAZ chunk table offset is not valid');
    let chunks: LazChunk[];
    try {
      const fixed = chunkPoints === VARIABLE_CHUNKS ? undefined : chunkPoints;
      chunks = decodeChunkTable(await readAt(file, tableOffset, Math.min(size - tableOffset, 64 * 1024 * 1024)), fixed);
    } catch (error) {
      throw notCompatible(`The LAZ chunk table cannot be read: ${(error as Error).message}`);
    }
    const firstChunk = header.pointDataOffset + 8;
    const total = chunks.reduce((sum, chunk) => sum + chunk.bytes, 0);
    if (chunks.some((chunk) => chunk.bytes <= 0) || firstChunk + total > tableOffset) {
      throw notCompatible('The LAZ chunk table does not match the file');
    }
    return { header, chunks, firstChunk };
  } finally {
    await file.close();
  }
}

async function* lazBatches(path: string, layout: LazLayout): AsyncGenerator<PointBatch> {
  const { header, chunks } = layout;
  const module = await loadLazPerf();
  const decoder = new LasRecordDecoder(header);
  const recordLength = header.recordLength;
  const largest = Math.max(...chunks.map((chunk) => chunk.bytes));
  const file = await open(path, 'r');
  const chunkPointer = module._malloc(largest);
  const pointPointer = module._malloc(recordLength);
  const records = Buffer.alloc(BATCH_POINTS * recordLength);
  let offset = layout.firstChunk;
  let remaining = header.pointCount;
  let pointIndex = 0;
  let filled = 0;
  try {
    for (const chunk of chunks) {
      if (remaining === 0) break;
      const bytes = await readAt(file, offset, chunk.bytes);
      module.HEAPU8.set(bytes, chunkPointer);
      offset += chunk.bytes;
      const points = Math.min(chunk.points, remaining);
      const chunkDecoder = new module.ChunkDecoder();
      try {
        chunkDecoder.open(header.pointFormat, recordLength, chunkPointer);
        for (let i = 0; i < points; i += 1, pointIndex += 1) {
          chunkDecoder.getPoint(pointPointer);
          records.set(module.HEAPU8.subarray(pointPointer, pointPointer + recordLength), filled * recordLength);
          filled += 1;
          if (filled === BATCH_POINTS) {
            yield decoder.decode(records, 0, filled, recordLength);
            filled = 0;
          }
        }
      } catch (error) {
        if (error instanceof Error && error.name === 'ProcessingError') throw error;
        throw notCompatible(`The LAZ file is corrupt near point ${pointIndex}: laz-perf could not decode it`);
      } finally {
        chunkDecoder.delete();
      }
      remaining -= points;
    }
    if (remaining > 0) throw notCompatible(`The LAZ chunks hold ${header.pointCount - remaining} of ${header.pointCount} points`);
    if (filled > 0) yield decoder.decode(records, 0, filled, recordLength);
  } finally {
    module._free(pointPointer);
    module._free(chunkPointer);
    await file.close();
  }
}
