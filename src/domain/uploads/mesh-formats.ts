/**
 * Textured meshes as a bundle's input (docs/design/meshes.md): what their first bytes look like,
 * and the limits finalize can check without reading the whole mesh (docs/processing.md, "Mesh
 * inputs"). No I/O: the caller reads the bytes.
 */

export type MeshFormat = 'obj' | 'mtl' | 'gltf' | 'glb' | 'ply-mesh';

/** The bounds of docs/design/meshes.md: the input's bytes (every file of the session) and its triangles. */
export const MESH_MAX_BYTES = 2 * 1024 ** 3;
export const MESH_MAX_TRIANGLES = 20_000_000;

const latin1 = (bytes: Uint8Array, start = 0, end = bytes.length) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1', start, end);

/** The complete lines of a text probe (the last one may be cut by the read), trimmed, without blanks and comments. */
function statements(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.length > 1) lines.pop();
  return lines.map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith('#'));
}

/** The statements of Wavefront OBJ (geometry, grouping, materials, free-form surfaces). */
const OBJ_KEYWORDS = new Set(
  'v vt vn vp f l p g o s mg usemtl mtllib cstype deg bmat step curv curv2 surf parm trim hole scrv sp end con lod shadow_obj trace_obj ctech stech call csh'.split(
    ' ',
  ),
);
/** What makes text an OBJ rather than any text whose words happen to be keywords. */
const OBJ_GEOMETRY = new Set(['v', 'f', 'mtllib', 'usemtl', 'o', 'g']);

function isObj(rows: string[]): boolean {
  const keywords = rows.map((row) => row.split(/\s+/)[0] as string);
  return keywords.every((keyword) => OBJ_KEYWORDS.has(keyword)) && keywords.some((keyword) => OBJ_GEOMETRY.has(keyword));
}

/** An MTL file: a material library, whose first statement is `newmtl` (comments aside). */
function isMtl(rows: string[]): boolean {
  return rows.length > 0 && /^newmtl(\s|$)/.test(rows[0] as string);
}

/**
 * A glTF JSON file: an object with `asset.version` (glTF 2.0 section 5.4). The probe holds the
 * first bytes only, so `asset` must start in them with its `version` inside; exporters write it
 * first.
 */
function isGltfJson(text: string): boolean {
  return text.trimStart().startsWith('{') && /"asset"\s*:\s*\{[^{}]*"version"\s*:/.test(text);
}

/** A GLB: its 12-byte header, magic `glTF` and version 2. */
export function isGlb(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && latin1(bytes, 0, 4) === 'glTF' && bytes[4] === 2 && bytes[5] === 0 && bytes[6] === 0;
}

/**
 * The faces a PLY header declares (`element face N`), or undefined when the header is not
 * complete in the bytes. Zero: a point cloud.
 */
export function plyFaceCount(bytes: Uint8Array): number | undefined {
  const text = latin1(bytes, 0, Math.min(bytes.length, 65536));
  const end = text.search(/\nend_header\r?\n/);
  if (!text.startsWith('ply') || end < 0) return undefined;
  const face = /\nelement\s+face\s+(\d+)\s*\r?(?=\n)/.exec(text.slice(0, end + 1));
  return face ? Number(face[1]) : 0;
}

/** The mesh format of text lines (OBJ, MTL) or glTF JSON, or null for any other text. */
export function detectMeshText(text: string): MeshFormat | null {
  if (isGltfJson(text)) return 'gltf';
  const rows = statements(text);
  if (rows.length === 0) return null;
  if (isMtl(rows)) return 'mtl';
  return isObj(rows) ? 'obj' : null;
}

/** Where a GLB's JSON chunk lies (the first chunk, GLB section 4.4), from its first 20 bytes. */
export function glbJsonChunk(bytes: Uint8Array): { start: number; length: number } | undefined {
  if (!isGlb(bytes) || bytes.length < 20 || latin1(bytes, 16, 20) !== 'JSON') return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { start: 20, length: view.getUint32(12, true) };
}

interface GltfAccessor {
  count?: unknown;
}
interface GltfPrimitive {
  mode?: unknown;
  indices?: unknown;
  attributes?: { POSITION?: unknown };
}

/** The triangles a primitive draws: by its indices' count, else its positions', by its mode (glTF 2.0 section 3.7.2.1). */
function primitiveTriangles(primitive: GltfPrimitive, accessors: GltfAccessor[]): number {
  const accessor = accessors[Number(primitive.indices ?? primitive.attributes?.POSITION)];
  // Whole and not negative, whatever the document says: the count is stored as an integer.
  const count = typeof accessor?.count === 'number' && accessor.count > 0 ? Math.floor(accessor.count) : 0;
  const mode = primitive.mode ?? 4;
  if (mode === 4) return Math.floor(count / 3);
  if (mode === 5 || mode === 6) return Math.max(0, count - 2);
  return 0; // points and lines
}

/**
 * The triangles a glTF document draws, from its accessors' counts: each mesh's primitives, times
 * the nodes that use the mesh (at least once). A document that is not a glTF object counts none.
 */
export function gltfTriangles(document: unknown): number {
  if (typeof document !== 'object' || document === null) return 0;
  const { meshes, accessors, nodes } = document as { meshes?: unknown; accessors?: unknown; nodes?: unknown };
  if (!Array.isArray(meshes)) return 0;
  const accessorList = Array.isArray(accessors) ? (accessors as GltfAccessor[]) : [];
  const uses = new Map<number, number>();
  for (const node of Array.isArray(nodes) ? nodes : []) {
    const mesh = (node as { mesh?: unknown })?.mesh;
    if (typeof mesh === 'number') uses.set(mesh, (uses.get(mesh) ?? 0) + 1);
  }
  return meshes.reduce<number>((sum, mesh, index) => {
    const primitives = (mesh as { primitives?: unknown })?.primitives;
    const once = Array.isArray(primitives)
      ? primitives.reduce<number>((triangles, primitive) => triangles + primitiveTriangles(primitive ?? {}, accessorList), 0)
      : 0;
    return sum + once * Math.max(1, uses.get(index) ?? 0);
  }, 0);
}

/**
 * The limit a mesh input exceeds, in words naming it, or null when it is within them.
 * `maxBytes`: the deployment's (RDP_MESH_MAX_INPUT_BYTES, at most MESH_MAX_BYTES); `triangles`:
 * what the main file holds as finalize counts it, undefined when it cannot tell.
 */
export function meshLimitRefusal(input: {
  name: string;
  sessionBytes: number;
  maxBytes: number;
  triangles: number | undefined;
}): string | null {
  if (input.sessionBytes > input.maxBytes) {
    return `The mesh input is ${input.sessionBytes} bytes with its files; a mesh input may be at most ${input.maxBytes} bytes`;
  }
  if (input.triangles !== undefined && input.triangles > MESH_MAX_TRIANGLES) {
    return `${input.name} has at least ${input.triangles} triangles; a mesh input may have at most 20 million (${MESH_MAX_TRIANGLES})`;
  }
  return null;
}
