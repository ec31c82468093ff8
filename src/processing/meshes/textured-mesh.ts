import path from 'node:path';
import type { TriangleMesh } from '../models/triangle-mesh.js';
import { ProcessingError } from '../processing-error.js';

/** A texture as its file's bytes: PNG is decoded to crop and reduce it per tile, JPEG kept whole. */
export interface MeshTexture {
  name: string;
  bytes: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg';
}

export interface MeshMaterial {
  name: string;
  /** Linear RGBA, glTF's baseColorFactor. */
  color: [number, number, number, number];
  texture?: MeshTexture;
}

/**
 * A triangle mesh with what a textured mesh carries beside positions, per vertex: unit normals,
 * UVs (glTF's convention, v down from the image's top) and linear RGBA colours; per triangle, a
 * material. Coordinates are glTF's, y up (docs/processing.md, "Meshes").
 */
export interface TexturedMesh extends TriangleMesh {
  normals?: Float32Array;
  uvs?: Float32Array;
  colors?: Float32Array;
  /** The material of each triangle, an index into `materials`. */
  materialOf: Uint16Array;
  materials: MeshMaterial[];
}

export const DEFAULT_MATERIAL: MeshMaterial = { name: 'default', color: [0.8, 0.8, 0.8, 1] };

/**
 * Where a mesh's relative reference (mtllib, map_Kd, a glTF uri) is among the upload's files: by
 * its name as written, then by its last path part (an upload has no folders). Missing: the
 * processing fails naming the file.
 */
export function resolveReference(byName: Map<string, string>, reference: string, what: string): string {
  const decoded = safeDecode(reference.replaceAll('\\', '/'));
  const found = byName.get(reference) ?? byName.get(decoded) ?? byName.get(path.posix.basename(decoded));
  if (found) return found;
  throw new ProcessingError(
    'unsupported-content',
    `The ${what} references ${decoded.slice(0, 200)}, which is not among the uploaded files`,
  );
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function textureOf(name: string, bytes: Uint8Array, what: string): MeshTexture {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47)
    return { name, bytes, mimeType: 'image/png' };
  if (bytes[0] === 0xff && bytes[1] === 0xd8) return { name, bytes, mimeType: 'image/jpeg' };
  throw new ProcessingError('unsupported-content', `The ${what}'s texture ${name} is neither a PNG nor a JPEG image`);
}

/** Normals made unit length; a zero or non-finite one is replaced by `fallback`'s (computed) normal. */
export function unitNormals(normals: Float32Array, fallback: () => Float32Array): Float32Array {
  let computed: Float32Array | undefined;
  for (let v = 0; v < normals.length; v += 3) {
    const length = Math.hypot(normals[v]!, normals[v + 1]!, normals[v + 2]!);
    if (length > 1e-12 && Number.isFinite(length)) {
      normals[v] = normals[v]! / length;
      normals[v + 1] = normals[v + 1]! / length;
      normals[v + 2] = normals[v + 2]! / length;
    } else {
      computed ??= fallback();
      normals.set(computed.subarray(v, v + 3), v);
    }
  }
  return normals;
}
