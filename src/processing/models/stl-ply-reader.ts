import { readFile } from 'node:fs/promises';
import type { BufferGeometry } from 'three';
import { PLYLoader } from 'three/examples/jsm/loaders/PLYLoader.js';
import { STLLoader } from 'three/examples/jsm/loaders/STLLoader.js';
import { type TriangleMesh, unreadableModel } from './triangle-mesh.js';

/**
 * STL and PLY through three's loaders, whose parse() runs in Node on an ArrayBuffer. An STL's
 * triangles come unindexed (three corners each); the indices then just count them.
 */
export async function readStl(path: string): Promise<TriangleMesh> {
  const geometry = await parseWith('STL', path, (data) => new STLLoader().parse(data));
  return meshOf(geometry, 'STL');
}

/** A PLY's faces, with its per-vertex normals, colours (linear RGB) and UVs where it has them (mesh processing keeps them). */
export async function readPly(
  path: string,
): Promise<TriangleMesh & { normals?: Float32Array; colors?: Float32Array; uvs?: Float32Array }> {
  const geometry = await parseWith('PLY', path, (data) => new PLYLoader().parse(data));
  if (!geometry.index) throw unreadableModel('The PLY file has no faces (a point cloud): there is no surface to preview');
  const mesh: TriangleMesh & { normals?: Float32Array; colors?: Float32Array; uvs?: Float32Array } = meshOf(geometry, 'PLY');
  const floats = (name: string) => {
    const attribute = geometry.getAttribute(name);
    if (!attribute) return undefined;
    // Colours come as the file's integers, normalized: 8-bit or 16-bit to 0..1.
    const scale = !attribute.normalized ? 1 : attribute.array instanceof Uint16Array ? 1 / 65535 : 1 / 255;
    return Float32Array.from(attribute.array, (value) => value * scale);
  };
  mesh.normals = floats('normal');
  mesh.colors = floats('color');
  mesh.uvs = floats('uv');
  return mesh;
}

function arrayBufferOf(bytes: Buffer): ArrayBuffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes.buffer as ArrayBuffer;
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/** A loader's exception (a DataView read past the end of a truncated file, say) as a reason. */
async function parseWith(format: string, path: string, parse: (data: ArrayBuffer) => BufferGeometry): Promise<BufferGeometry> {
  const data = arrayBufferOf(await readFile(path));
  try {
    return parse(data);
  } catch (error) {
    const detail =
      error instanceof RangeError
        ? 'it ends before the data its header announces (truncated?)'
        : String((error as Error).message ?? error);
    throw unreadableModel(`The ${format} file cannot be read: ${detail}`);
  }
}

function meshOf(geometry: BufferGeometry, format: string): TriangleMesh {
  const position = geometry.getAttribute('position');
  if (!position || position.count === 0) throw unreadableModel(`The ${format} file has no vertices to preview`);
  const positions = position.array instanceof Float32Array ? position.array : Float32Array.from(position.array);
  const index = geometry.index;
  const indices = index
    ? Uint32Array.from(index.array)
    : Uint32Array.from({ length: position.count - (position.count % 3) }, (_, i) => i);
  if (indices.length % 3 !== 0) throw unreadableModel(`The ${format} file's faces do not make whole triangles`);
  return { positions, indices };
}
