import { type FileHandle, open } from 'node:fs/promises';
import { notCompatible } from '../processing-error.js';
import { readLasCrs } from './las-crs.js';
import { LAS_INTENSITY_RANGE, type LasHeader, LasRecordDecoder, lasAttributes } from './las-header.js';
import { readLasHeader } from './las-reader.js';
import { decodeChunkTable, type LazChunk } from './laz-chunk-table.js';
import { decodeLazChunk, type LazChunkDecoder } from './laz-chunks.js';
import { BATCH_POINTS, type PointBatch, type PointCloudReader } from './point-cloud.js';

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
 * LAZ through laz-perf (LASzip compiled to WASM), chunk by chunk: the chunk table gives each
 * chunk's size, a chunk is copied into the WASM heap and decoded by laz-perf's chunk decoder
 * (laz-chunks.ts), so memory is a few chunks, not the file. With `decodeChunk` the chunks are
 * decoded elsewhere (worker threads) and read here in order: the file is still decoded once.
 */
export async function openLaz(path: string, decodeChunk?: LazChunkDecoder): Promise<PointCloudReader> {
  const layout = await readLazLayout(path);
  const crs = await readLasCrs(path, layout.header);
  return {
    header: {
      format: 'laz',
      pointCount: layout.header.pointCount,
      declaredBounds: layout.header.bounds,
      attributes: lasAttributes(layout.header),
      intensityRange: LAS_INTENSITY_RANGE,
      ...(crs ? { crs } : {}),
    },
    batches: () => lazBatches(path, layout, decodeChunk ?? decodeLazChunk),
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

/** Chunks requested ahead of the one being read: enough that no decoding thread waits. */
const CHUNKS_AHEAD = 8;

/**
 * Chunk after chunk through `decodeChunk`, on this thread or on worker threads: chunks are
 * requested ahead, decoded in parallel where threads are given, and read in file order.
 */
async function* lazBatches(path: string, layout: LazLayout, decodeChunk: LazChunkDecoder): AsyncGenerator<PointBatch> {
  const { header, chunks } = layout;
  const decoder = new LasRecordDecoder(header);
  const { recordLength, pointFormat } = header;
  const requests: { points: number; records: Promise<Uint8Array> }[] = [];
  let next = 0;
  let offset = layout.firstChunk;
  let firstPoint = 0;
  const requestNext = () => {
    const chunk = chunks[next]!;
    const points = Math.min(chunk.points, header.pointCount - firstPoint);
    const records = decodeChunk({ path, offset, bytes: chunk.bytes, points, firstPoint, pointFormat, recordLength });
    records.catch(() => {}); // awaited in order below; a failure further ahead must not go unhandled meanwhile
    requests.push({ points, records });
    offset += chunk.bytes;
    firstPoint += points;
    next += 1;
  };
  const more = () => next < chunks.length && firstPoint < header.pointCount;
  while (requests.length < CHUNKS_AHEAD && more()) requestNext();
  let done = 0;
  while (requests.length > 0) {
    const { points, records } = requests.shift()!;
    if (more()) requestNext();
    let bytes: Uint8Array;
    try {
      bytes = await records;
    } catch (error) {
      throw notCompatible((error as Error).message);
    }
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let start = 0; start < points; start += BATCH_POINTS) {
      const count = Math.min(BATCH_POINTS, points - start);
      yield decoder.decode(view, start * recordLength, count, recordLength);
    }
    done += points;
  }
  if (done < header.pointCount) throw notCompatible(`The LAZ chunks hold ${done} of ${header.pointCount} points`);
}
