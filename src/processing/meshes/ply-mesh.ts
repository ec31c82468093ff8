import { readPly } from '../models/stl-ply-reader.js';
import { vertexNormals } from '../models/triangle-mesh.js';
import { DEFAULT_MATERIAL, type TexturedMesh, unitNormals } from './textured-mesh.js';

/**
 * A PLY with faces through the preview's reader, with its normals and colours. A PLY is z-up
 * like the point clouds it comes beside (docs/processing.md, "Meshes"): (x, y, z) becomes glTF's
 * (x, z, -y). Colours become RGBA with an opaque alpha.
 */
export async function readPlyMesh(main: string): Promise<TexturedMesh> {
  const read = await readPly(main);
  const positions = yUp(read.positions);
  const mesh: TexturedMesh = {
    positions,
    indices: read.indices,
    materialOf: new Uint16Array(read.indices.length / 3),
    materials: [DEFAULT_MATERIAL],
  };
  if (read.uvs) mesh.uvs = read.uvs;
  if (read.colors) {
    const colors = new Float32Array((read.colors.length / 3) * 4);
    for (let v = 0, c = 0; v < read.colors.length; v += 3, c += 4) {
      colors.set(read.colors.subarray(v, v + 3), c);
      colors[c + 3] = 1;
    }
    mesh.colors = colors;
  }
  mesh.normals = read.normals ? unitNormals(yUp(read.normals), () => vertexNormals(mesh)) : vertexNormals(mesh);
  return mesh;
}

function yUp(values: Float32Array): Float32Array {
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i += 3) {
    out[i] = values[i]!;
    out[i + 1] = values[i + 2]!;
    out[i + 2] = -values[i + 1]!;
  }
  return out;
}
