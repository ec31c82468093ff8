import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelFormat } from '../../domain/library/model-formats.js';
import { writePreviewGlb } from './glb-writer.js';
import { readGltf } from './gltf-reader.js';
import { readObj } from './obj-reader.js';
import { renderModelThumbnail } from './rasterizer.js';
import { readPly, readStl } from './stl-ply-reader.js';
import {
  checkMesh,
  type MeshBounds,
  meshBounds,
  type TriangleMesh,
  triangleArea,
  unreadableModel,
  vertexNormals,
  withoutUnusedVertices,
} from './triangle-mesh.js';
import { clusterToBudget, indexSource, PREVIEW_TRIANGLE_BUDGET } from './vertex-clustering.js';

export interface ModelPreview {
  /** The GLB preview and the PNG thumbnail, in the output folder. */
  previewPath: string;
  thumbnailPath: string;
  /** Triangles of the preview (after simplification) and of the original. */
  triangles: number;
  sourceTriangles: number;
  bounds: MeshBounds;
}

export interface ConvertOptions {
  /** The most triangles the preview keeps (PREVIEW_TRIANGLE_BUDGET). */
  budget?: number;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/**
 * Converts an original (its format read from the bytes at finalize) into `preview.glb` and
 * `thumbnail.png` in `outputDir`. A file that cannot be previewed throws a ProcessingError
 * whose message is the reason shown to the user.
 */
export async function convertModel(
  input: { path: string; format: ModelFormat },
  outputDir: string,
  options: ConvertOptions = {},
): Promise<ModelPreview> {
  const budget = options.budget ?? PREVIEW_TRIANGLE_BUDGET;
  const { mesh: read, sourceTriangles } = await readModel(input, budget, options);
  options.signal?.throwIfAborted();
  options.onProgress?.(0.7);
  checkMesh(read, `${input.format.toUpperCase()} file`);
  const area = surfaceArea(read);
  if (!(area > 0)) throw unreadableModel('Every triangle of the model has zero area: there is no surface to preview');
  const mesh = withoutUnusedVertices(await simplified(read, area, budget));
  // Clustering a very thin or tiny model to a small budget can collapse every triangle.
  if (mesh.indices.length === 0) throw unreadableModel('The model has no triangles left once simplified for its preview');
  const glb = await writePreviewGlb(mesh, vertexNormals(mesh));
  options.signal?.throwIfAborted();
  options.onProgress?.(0.85);
  const previewPath = path.join(outputDir, 'preview.glb');
  const thumbnailPath = path.join(outputDir, 'thumbnail.png');
  await writeFile(previewPath, glb);
  await writeFile(thumbnailPath, renderModelThumbnail(mesh));
  options.onProgress?.(1);
  return { previewPath, thumbnailPath, triangles: mesh.indices.length / 3, sourceTriangles, bounds: meshBounds(mesh.positions) };
}

async function readModel(
  input: { path: string; format: ModelFormat },
  budget: number,
  options: ConvertOptions,
): Promise<{ mesh: TriangleMesh; sourceTriangles: number }> {
  switch (input.format) {
    case 'obj': {
      let sourceTriangles = 0;
      const mesh = await readObj(input.path, {
        budget,
        signal: options.signal,
        onProgress: (f) => options.onProgress?.(0.7 * f),
        onTriangles: (n) => {
          sourceTriangles = n;
        },
      });
      return { mesh, sourceTriangles };
    }
    case 'stl':
      return counted(await readStl(input.path));
    case 'ply':
      return counted(await readPly(input.path));
    case 'gltf':
    case 'glb':
      return counted(await readGltf(input.path, input.format));
    default:
      throw unreadableModel(`A ${input.format.toUpperCase()} file gets no preview`);
  }
}

function counted(mesh: TriangleMesh): { mesh: TriangleMesh; sourceTriangles: number } {
  return { mesh, sourceTriangles: mesh.indices.length / 3 };
}

/** The mesh itself within the budget; else clustered (the OBJ reader has clustered already). */
async function simplified(mesh: TriangleMesh, area: number, budget: number): Promise<TriangleMesh> {
  if (mesh.indices.length / 3 <= budget) return mesh;
  return clusterToBudget(mesh.positions, meshBounds(mesh.positions), area, indexSource(mesh.indices), budget);
}

function surfaceArea(mesh: TriangleMesh): number {
  let area = 0;
  for (let t = 0; t < mesh.indices.length; t += 3) {
    area += triangleArea(mesh.positions, mesh.indices[t]!, mesh.indices[t + 1]!, mesh.indices[t + 2]!);
  }
  return area;
}
