import { readFile } from 'node:fs/promises';
import { type Document, type JSONDocument, type mat4, type Node, NodeIO, type Primitive } from '@gltf-transform/core';
import { GrowableFloat32, GrowableUint32, type TriangleMesh, unreadableModel } from './triangle-mesh.js';

const TRIANGLES = 4;

interface GltfResource {
  uri?: string;
}

/**
 * glTF (JSON with data: URIs) and GLB through glTF-Transform: the triangles of every mesh the
 * default scene places, in world coordinates. A .gltf whose buffers or images are other files
 * cannot be previewed alone: the reason names the missing file. Points, lines and strips are
 * not surfaces a preview needs and are skipped.
 */
export async function readGltf(path: string, format: 'gltf' | 'glb'): Promise<TriangleMesh> {
  const what = format === 'glb' ? 'GLB file' : 'glTF file';
  return sceneTriangles(await readGltfDocument(path, format), what);
}

/**
 * The glTF-Transform document of a .gltf or .glb. `resource` gives the bytes of an external
 * buffer or image by its uri (mesh processing resolves them among the upload's files); without
 * it (the preview), an external reference is a reason naming the file.
 */
export async function readGltfDocument(
  path: string,
  format: 'gltf' | 'glb',
  resource?: (uri: string) => Promise<Uint8Array<ArrayBuffer>>,
): Promise<Document> {
  const bytes = await readFile(path);
  const io = new NodeIO();
  const what = format === 'glb' ? 'GLB file' : 'glTF file';
  let jsonDocument: JSONDocument;
  try {
    jsonDocument =
      format === 'glb'
        ? await io.binaryToJSON(new Uint8Array(bytes))
        : { json: JSON.parse(bytes.toString('utf8')), resources: {} };
  } catch (error) {
    throw unreadableModel(`The ${what} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const json = jsonDocument.json as { buffers?: GltfResource[]; images?: GltfResource[] };
  for (const item of [...(json.buffers ?? []), ...(json.images ?? [])]) {
    if (item.uri === undefined || item.uri.startsWith('data:') || item.uri in jsonDocument.resources) continue;
    if (!resource) {
      throw unreadableModel(
        `The ${what} refers to the external file "${item.uri.slice(0, 200)}", which was not uploaded with it: embed its buffers and images (a GLB, or data: URIs) to get a preview`,
      );
    }
    jsonDocument.resources[item.uri] = await resource(item.uri);
  }
  try {
    return await io.readJSON(jsonDocument);
  } catch (error) {
    throw unreadableModel(`The ${what} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Told of each triangle primitive placed, after its positions and triangles were added. */
export type PrimitiveVisitor = (primitive: Primitive, matrix: mat4, mirrored: boolean, triangles: number) => void;

export function sceneTriangles(document: Document, what: string, visitor?: PrimitiveVisitor): TriangleMesh {
  const root = document.getRoot();
  const scene = root.getDefaultScene() ?? root.listScenes()[0];
  const positions = new GrowableFloat32();
  const indices = new GrowableUint32();
  const visit = (node: Node): void => {
    const mesh = node.getMesh();
    if (mesh) {
      const matrix = node.getWorldMatrix();
      // A mirroring transform turns the winding over; swap two corners to keep faces outward.
      const mirrored = determinant3(matrix) < 0;
      for (const primitive of mesh.listPrimitives()) {
        if (primitive.getMode() !== TRIANGLES) continue;
        const position = primitive.getAttribute('POSITION');
        if (!position) continue;
        const base = positions.length / 3;
        const element: number[] = [];
        for (let i = 0; i < position.getCount(); i += 1) {
          position.getElement(i, element);
          const [x, y, z] = transform(matrix, element[0]!, element[1]!, element[2]!);
          positions.push3(x, y, z);
        }
        const count = position.getCount();
        const index = primitive.getIndices();
        const corners = index ? index.getCount() : count;
        for (let k = 0; k + 2 < corners; k += 3) {
          const [a, b, c] = index ? [index.getScalar(k), index.getScalar(k + 1), index.getScalar(k + 2)] : [k, k + 1, k + 2];
          if (a >= count || b >= count || c >= count) {
            throw unreadableModel(
              `The ${what} has a triangle that refers to vertex ${Math.max(a, b, c)}, but its primitive has ${count} vertices`,
            );
          }
          if (mirrored) indices.push3(base + a, base + c, base + b);
          else indices.push3(base + a, base + b, base + c);
        }
        visitor?.(primitive, matrix, mirrored, Math.floor(corners / 3));
      }
    }
    for (const child of node.listChildren()) visit(child);
  };
  for (const node of scene?.listChildren() ?? []) visit(node);
  if (indices.length === 0) throw unreadableModel(`The ${what} has no triangles to preview (no scene places a triangle mesh)`);
  return { positions: positions.trimmed(), indices: indices.trimmed() };
}

function transform(m: mat4, x: number, y: number, z: number): [number, number, number] {
  return [
    m[0] * x + m[4] * y + m[8] * z + m[12],
    m[1] * x + m[5] * y + m[9] * z + m[13],
    m[2] * x + m[6] * y + m[10] * z + m[14],
  ];
}

function determinant3(m: mat4): number {
  return m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) + m[8] * (m[1] * m[6] - m[2] * m[5]);
}
