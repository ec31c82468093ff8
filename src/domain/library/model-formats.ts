import { detectPointCloudFormat } from '../processing/point-cloud-formats.js';

/** The formats the asset library takes (docs/design/asset-library.md#formats), known from a file's bytes. */
export const MODEL_FORMATS = ['gltf', 'glb', 'obj', 'stl', 'ply', 'fbx', 'ifc', 'step', 'e57', 'las', 'laz'] as const;
export type ModelFormat = (typeof MODEL_FORMATS)[number];

/** The formats a browser shows once the worker has made a GLB preview of them. */
export const PREVIEWABLE_FORMATS: readonly ModelFormat[] = ['gltf', 'glb', 'obj', 'stl', 'ply'];

/** Bytes a caller should read from the start of a file for detectModelFormat. */
export const MODEL_DETECT_BYTES = 64 * 1024;

/** The largest original that gets a preview: 200 MiB; one byte more is OriginalTooLarge. */
export const MAX_PREVIEW_SOURCE_BYTES = 200 * 1024 * 1024;

export interface DetectedModelFormat {
  format: ModelFormat;
  previewable: boolean;
}

export type PreviewPlan = { previewable: true } | { previewable: false; reason: 'OriginalTooLarge' | 'UnsupportedFormat' };

const STL_HEADER_BYTES = 80;
const STL_TRIANGLE_BYTES = 50;
const GLB_HEADER_BYTES = 12;

/**
 * The format from the content, never from the name: magic bytes first, then STL (ASCII by its
 * words, binary by its size, which needs `totalSize`: it has no magic), then the text formats.
 * `head` is the file's first bytes (MODEL_DETECT_BYTES or all of a smaller file). Undefined when
 * the bytes are none of the library's formats.
 */
export function detectModelFormat(head: Uint8Array, totalSize?: number): DetectedModelFormat | undefined {
  const format = detect(Buffer.from(head.buffer, head.byteOffset, head.byteLength), totalSize);
  return format && { format, previewable: PREVIEWABLE_FORMATS.includes(format) };
}

/** Whether the worker makes a preview of an original of this format and size, and why not. */
export function previewPlan(format: ModelFormat, size: number): PreviewPlan {
  if (!PREVIEWABLE_FORMATS.includes(format)) return { previewable: false, reason: 'UnsupportedFormat' };
  if (size > MAX_PREVIEW_SOURCE_BYTES) return { previewable: false, reason: 'OriginalTooLarge' };
  return { previewable: true };
}

function detect(head: Buffer, totalSize: number | undefined): ModelFormat | undefined {
  const magic = head.toString('latin1', 0, Math.min(head.length, 32));
  if (magic.startsWith('glTF')) return isGlb(head, totalSize) ? 'glb' : undefined;
  if (magic.startsWith('Kaydara FBX Binary')) return 'fbx';
  const pointCloud = detectPointCloudFormat(head);
  if (pointCloud === 'las' || pointCloud === 'laz' || pointCloud === 'e57' || pointCloud === 'ply') return pointCloud;
  if (magic.startsWith('LASF')) return undefined; // a LAS header too short to tell LAS from LAZ

  const text = textStart(head);
  if (text.startsWith('ISO-10303-21;')) return /FILE_SCHEMA\s*\(\s*\(\s*'IFC/i.test(text) ? 'ifc' : 'step';
  if (text.startsWith('; FBX')) return 'fbx';
  if (/^solid\b/.test(text) && /\bfacet\s+normal\b/.test(text)) return 'stl';
  if (isBinaryStl(head, totalSize)) return 'stl';
  if (head.includes(0)) return undefined;
  if (isGltfJson(text)) return 'gltf';
  if (isObj(text)) return 'obj';
  return undefined;
}

/** The head as text without a UTF-8 byte order mark and leading white space. */
function textStart(head: Buffer): string {
  return head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
}

/** GLB: "glTF", container version 1 or 2, and a length that is the file's when the size is known. */
function isGlb(head: Buffer, totalSize: number | undefined): boolean {
  if (head.length < GLB_HEADER_BYTES) return false;
  const version = head.readUInt32LE(4);
  const length = head.readUInt32LE(8);
  if (version !== 1 && version !== 2) return false;
  return totalSize === undefined ? length >= GLB_HEADER_BYTES : length === totalSize;
}

/** Binary STL: an 80-byte header and a triangle count, then exactly 50 bytes per triangle. */
function isBinaryStl(head: Buffer, totalSize: number | undefined): boolean {
  if (totalSize === undefined || head.length < STL_HEADER_BYTES + 4) return false;
  const triangles = head.readUInt32LE(STL_HEADER_BYTES);
  return triangles > 0 && totalSize === STL_HEADER_BYTES + 4 + STL_TRIANGLE_BYTES * triangles;
}

/** glTF JSON: an object whose asset names its version (required by the glTF specification). */
function isGltfJson(text: string): boolean {
  return text.startsWith('{') && /"asset"\s*:\s*\{[^{}]*"version"\s*:\s*"/.test(text);
}

/** Statement keywords of the OBJ format (geometry, grouping, materials, free-form). */
const OBJ_KEYWORDS = new Set(
  [
    'v vt vn vp f l p o g s mg mtllib usemtl maplib usemap lod shadow_obj trace_obj ctech stech bevel c_interp d_interp',
    'cstype deg bmat step curv curv2 surf parm trim hole scrp sp end con call csh',
  ]
    .join(' ')
    .split(' '),
);

const NUMBER = String.raw`[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?`;
/** A geometric vertex: "v" and at least three numbers. */
const OBJ_VERTEX = new RegExp(`^v\\s+${NUMBER}\\s+${NUMBER}\\s+${NUMBER}(\\s|$)`);

/** OBJ: every statement starts with one of its keywords, and at least one is a vertex. */
function isObj(text: string): boolean {
  const lines = text.split(/\r?\n/);
  // The last line may be cut by the read; judge only complete ones.
  if (lines.length > 1) lines.pop();
  const statements = lines.map((line) => line.trim()).filter((line) => line.length > 0 && !line.startsWith('#'));
  if (statements.length === 0) return false;
  const keywordsKnown = statements.every((line) => OBJ_KEYWORDS.has(line.split(/\s+/, 1)[0] as string));
  return keywordsKnown && statements.some((line) => OBJ_VERTEX.test(line));
}
