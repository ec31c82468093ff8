import { ProcessingError } from '../processing-error.js';

/**
 * PLACEHOLDER on the mesh-inputs branch: the mesh tiler (docs/design/meshes.md, "Mesh tiles") is
 * written beside it and replaces this file whole; only the interface below is shared.
 */

export interface MeshInputFiles {
  /** The main mesh file (OBJ, glTF, GLB or PLY with faces), a path on disk. */
  main: string;
  /** Every file of the upload session by its name as uploaded (the main one included):
   *  the mesh's relative references (mtllib, map_Kd, glTF buffers/images uri) resolve by name among these. */
  byName: Map<string, string>;
}

export interface MeshProcessResult {
  kind: 'mesh';
  /** Relative to outputDir: 'tileset.json' (same as point clouds: src/domain/processing/tileset-files.ts). */
  tilesetPath: string;
  /** Every file written, relative to outputDir: tileset.json, tiles/*.glb, thumbnail.png. */
  files: string[];
  thumbnailPath: string;
  /** Input triangles, and the tiles' box in the tileset frame. */
  triangles: number;
  bounds: { min: [number, number, number]; max: [number, number, number] };
}

export function processMesh(
  _input: MeshInputFiles,
  _outputDir: string,
  _options?: { onProgress?: (fraction: number) => void; signal?: AbortSignal },
): Promise<MeshProcessResult> {
  return Promise.reject(new ProcessingError('unsupported-content', 'Mesh processing is not built yet'));
}
