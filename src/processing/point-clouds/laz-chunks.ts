import { open } from 'node:fs/promises';
import { createLazPerf } from 'laz-perf';
import { notCompatible } from '../processing-error.js';

/** The part of laz-perf's WASM module we use (its own typings need @types/emscripten). */
export interface LazPerfModule {
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

export function loadLazPerf(): Promise<LazPerfModule> {
  lazPerf ??= (createLazPerf as unknown as () => Promise<LazPerfModule>)();
  return lazPerf;
}

/** One LASzip chunk to decompress: where it is in the file and what its points look like. */
export interface LazChunkRequest {
  path: string;
  offset: number;
  bytes: number;
  points: number;
  /** Index of the chunk's first point in the file, for error messages. */
  firstPoint: number;
  pointFormat: number;
  recordLength: number;
}

/** A function that decompresses a chunk to its raw LAS records, possibly on another thread. */
export type LazChunkDecoder = (request: LazChunkRequest) => Promise<Uint8Array>;

/**
 * Decompresses one chunk to raw LAS records. Chunks are independent in LASzip, so worker
 * threads can each take one while the reading thread takes the records in file order.
 */
export async function decodeLazChunk(request: LazChunkRequest): Promise<Uint8Array> {
  const { points, recordLength } = request;
  const module = await loadLazPerf();
  const compressed = Buffer.alloc(request.bytes);
  const file = await open(request.path, 'r');
  try {
    const { bytesRead } = await file.read(compressed, 0, request.bytes, request.offset);
    if (bytesRead < request.bytes) throw notCompatible('The LAZ file ends before the data it declares');
  } finally {
    await file.close();
  }
  const chunkPointer = module._malloc(request.bytes);
  const recordsPointer = module._malloc(points * recordLength);
  const chunkDecoder = new module.ChunkDecoder();
  let at = 0;
  try {
    module.HEAPU8.set(compressed, chunkPointer);
    chunkDecoder.open(request.pointFormat, recordLength, chunkPointer);
    const getPoint = directGetPoint(chunkDecoder, recordsPointer);
    for (at = 1; at < points; at += 1) getPoint(recordsPointer + at * recordLength);
    if (points === 0) at = 0;
    return module.HEAPU8.slice(recordsPointer, recordsPointer + points * recordLength);
  } catch (error) {
    if (error instanceof Error && error.name === 'ProcessingError') throw error;
    throw notCompatible(`The LAZ file is corrupt near point ${request.firstPoint + at}: laz-perf could not decode it`);
  } finally {
    chunkDecoder.delete();
    module._free(recordsPointer);
    module._free(chunkPointer);
  }
}

/**
 * `getPoint` without embind's generic invoker: laz-perf is built without dynamic code, so each
 * call through the binding builds its argument list and checks the object's type, which costs
 * as much as decoding the point. The first point is decoded through the binding while the raw
 * WASM function and its two leading arguments are noted; the rest call that function directly.
 * Where the binding does not call out the way this expects, the binding itself is used.
 */
function directGetPoint(decoder: { getPoint(pointer: number): void }, firstPointer: number): (pointer: number) => void {
  const apply = Function.prototype.apply;
  let seen: { target: (...args: number[]) => void; args: number[] } | undefined;
  Function.prototype.apply = function (this: (...args: unknown[]) => unknown, self: unknown, args?: ArrayLike<unknown>) {
    if (!seen && args && args.length === 3 && args[2] === firstPointer) {
      seen = { target: this as (...args: number[]) => void, args: [args[0] as number, args[1] as number] };
    }
    return apply.call(this, self, args as unknown[]);
  };
  try {
    decoder.getPoint(firstPointer);
  } finally {
    Function.prototype.apply = apply;
  }
  if (!seen || !/^\d+$/.test(seen.target.name) || typeof seen.args[0] !== 'number' || typeof seen.args[1] !== 'number') {
    return (pointer) => decoder.getPoint(pointer);
  }
  const { target, args } = seen;
  const [method, self] = args as [number, number];
  return (pointer) => target(method, self, pointer);
}
