import type { StoredObjectRow } from '../../adapters/db/schema.js';
import { glbJsonChunk, gltfTriangles, plyFaceCount } from '../../domain/uploads/mesh-formats.js';
import { ObjTriangleCounter } from '../../domain/uploads/obj-triangles.js';
import type { UploadService } from './upload-service.js';

/** How much of a PLY finalize reads for its header. */
const MESH_HEADER_BYTES = 64 * 1024;
/** The largest glTF JSON (a .gltf, a GLB's JSON chunk) finalize parses for its triangles; a larger one is left to the processing. */
const MESH_JSON_BYTES = 32 * 1024 * 1024;

/**
 * The triangles of a mesh's main file as finalize counts them (docs/processing.md, "Mesh
 * inputs"), or undefined where it cannot tell: a PLY header's faces, a glTF's or GLB's accessors,
 * an OBJ's `f` lines read through once. Reading an OBJ stops once it holds more than
 * `stopAbove`: that is already too many.
 */
export async function meshInputTriangles(
  file: StoredObjectRow,
  uploads: Pick<UploadService, 'readHead' | 'readChunks'>,
  stopAbove: number,
): Promise<number | undefined> {
  const size = file.stored_bytes ?? 0;
  const head = (bytes: number) => uploads.readHead(file.blob_key, size, bytes);
  if (file.format === 'ply-mesh') return plyFaceCount(await head(MESH_HEADER_BYTES));
  if (file.format === 'obj') {
    const counter = new ObjTriangleCounter();
    for await (const chunk of await uploads.readChunks(file.blob_key)) {
      counter.push(chunk);
      if (counter.triangles > stopAbove) return counter.triangles;
    }
    return counter.end();
  }
  let json: Buffer | undefined;
  if (file.format === 'glb') {
    const chunk = glbJsonChunk(await head(20));
    if (chunk && chunk.length <= MESH_JSON_BYTES) json = (await head(chunk.start + chunk.length)).subarray(chunk.start);
  } else if (file.format === 'gltf' && size <= MESH_JSON_BYTES) {
    json = await head(size);
  }
  if (!json) return undefined;
  try {
    return gltfTriangles(JSON.parse(json.toString('utf8')));
  } catch {
    return undefined; // not JSON after all: the processing says what is wrong with it
  }
}
