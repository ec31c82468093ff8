import { detectPointCloudFormat } from '../processing/point-cloud-formats.js';
import { detectMeshText, isGlb, type MeshFormat, plyFaceCount } from './mesh-formats.js';

/**
 * What a file really is, from its first bytes, and what its name promises. Finalize compares the
 * two (FileNotCompatible): a ".las" must start like a LAS file whatever the client declared.
 * No I/O: the caller reads the first bytes.
 */

export type FileFormat =
  | 'las'
  | 'laz'
  | 'e57'
  | 'ply'
  | 'text-points'
  | 'pdf'
  | 'png'
  | 'jpeg'
  | 'zip'
  | 'mp4'
  | 'matroska'
  | 'avi'
  | 'mpeg-ts'
  | 'ifc'
  | 'json'
  | 'text'
  | MeshFormat;

/** How many leading bytes detectFormat needs. */
export { DETECT_BYTES as FORMAT_PROBE_BYTES } from '../processing/point-cloud-formats.js';

const EXTENSIONS: Record<string, FileFormat> = {
  las: 'las',
  laz: 'laz',
  e57: 'e57',
  ply: 'ply',
  obj: 'obj',
  mtl: 'mtl',
  gltf: 'gltf',
  glb: 'glb',
  xyz: 'text-points',
  pts: 'text-points',
  txt: 'text',
  csv: 'text',
  pdf: 'pdf',
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  zip: 'zip',
  mp4: 'mp4',
  mov: 'mp4',
  m4v: 'mp4',
  mkv: 'matroska',
  webm: 'matroska',
  avi: 'avi',
  // Not .ts and .mts: TypeScript's too; a transport stream so named is still found by content.
  m2ts: 'mpeg-ts',
  ifc: 'ifc',
  json: 'json',
};

/** The format a file name promises by its extension, or null when it promises none we know. */
export function expectedFormat(fileName: string): FileFormat | null {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return null;
  return EXTENSIONS[fileName.slice(dot + 1).toLowerCase()] ?? null;
}

const startsWith = (bytes: Uint8Array, prefix: string, at = 0) =>
  bytes.length >= at + prefix.length && [...prefix].every((char, index) => bytes[at + index] === char.charCodeAt(0));

/** Printable text (UTF-8 without NUL or other control bytes but tab, CR, LF). */
function isText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (const byte of bytes) if (byte === 0 || (byte < 0x20 && byte !== 9 && byte !== 10 && byte !== 13)) return false;
  try {
    // A multi-byte sequence cut by the probe's end is not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, Math.max(0, bytes.length - 3)));
    return true;
  } catch {
    return false;
  }
}

/** The format the bytes show, or null when none we know. */
export function detectFormat(bytes: Uint8Array): FileFormat | null {
  // Point clouds as the processors read them (one detector for finalize and processing).
  const pointCloud = detectPointCloudFormat(bytes);
  // A PLY that declares faces is a mesh; without faces it stays a point cloud.
  if (pointCloud === 'ply' && (plyFaceCount(bytes) ?? 0) > 0) return 'ply-mesh';
  if (pointCloud) return pointCloud === 'xyz' || pointCloud === 'pts' ? 'text-points' : pointCloud;
  if (startsWith(bytes, '%PDF-')) return 'pdf';
  if (startsWith(bytes, '\x89PNG\r\n\x1a\n')) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (startsWith(bytes, 'PK\x03\x04')) return 'zip';
  if (isGlb(bytes)) return 'glb';
  const video = detectVideoContainer(bytes);
  if (video) return video;
  if (startsWith(bytes, 'ISO-10303-21')) return 'ifc';
  if (isText(bytes)) {
    const mesh = detectMeshText(new TextDecoder().decode(bytes));
    if (mesh) return mesh;
    const first = new TextDecoder().decode(bytes).trimStart()[0];
    return first === '{' || first === '[' ? 'json' : 'text';
  }
  return null;
}

/** Whether what the bytes are satisfies what the name promised; a name that promises nothing takes anything. */
export function isCompatible(expected: FileFormat | null, actual: FileFormat | null): boolean {
  if (expected === null) return true;
  if (expected === actual) return true;
  // A .ply is a point cloud or a mesh, as its header says.
  if (expected === 'ply') return actual === 'ply-mesh';
  // A .json may be a glTF document.
  if (expected === 'json') return actual === 'gltf';
  // Point lists, JSON, OBJ and MTL are text too; a .txt or .csv of numbers is still text.
  return expected === 'text' && (actual === 'text-points' || actual === 'json' || actual === 'obj' || actual === 'mtl');
}

/** Brands of the ISO base media file format that are still images (HEIF, AVIF), not video. */
const IMAGE_BRANDS = new Set(['heic', 'heix', 'heim', 'heis', 'mif1', 'msf1', 'avif', 'avis']);

/** An MPEG transport stream: its sync byte every 188 bytes (192 in M2TS, after a 4-byte time code). */
const isTransportStream = (bytes: Uint8Array, at: number, packet: number) =>
  [0, 1, 2].every((index) => bytes[at + index * packet] === 0x47);

/** The video containers ffprobe reads that cameras and phones write, by their first bytes. */
function detectVideoContainer(bytes: Uint8Array): FileFormat | null {
  if (startsWith(bytes, 'ftyp', 4)) {
    const brand = String.fromCharCode(...bytes.subarray(8, 12));
    return IMAGE_BRANDS.has(brand) ? null : 'mp4';
  }
  // QuickTime files older than the ftyp box start with their movie or media data.
  if (['moov', 'mdat', 'wide'].some((box) => startsWith(bytes, box, 4))) return 'mp4';
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return 'matroska';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'AVI ', 8)) return 'avi';
  const transport = isTransportStream(bytes, 0, 188) || isTransportStream(bytes, 4, 192);
  if (transport && !isText(bytes)) return 'mpeg-ts';
  return null;
}

export type InputKind = 'point-cloud' | 'video' | 'mesh';

/**
 * The formats processing reads (docs/design/processing.md#inputs, docs/design/meshes.md), as
 * people know them: point clouds and meshes become 3D Tiles, videos are checked with ffprobe and
 * reconstructed. A mesh's MTL, buffers and textures are not inputs of their own: they come beside
 * its main file in the same session. One table for what
 * finalize accepts as a bundle's input, which processor runs, and the messages that list them.
 */
const PROCESSED: Partial<Record<FileFormat, { kind: InputKind; label: string }>> = {
  las: { kind: 'point-cloud', label: 'LAS' },
  laz: { kind: 'point-cloud', label: 'LAZ' },
  ply: { kind: 'point-cloud', label: 'PLY' },
  e57: { kind: 'point-cloud', label: 'E57' },
  'text-points': { kind: 'point-cloud', label: 'XYZ/PTS' },
  mp4: { kind: 'video', label: 'MP4/MOV' },
  matroska: { kind: 'video', label: 'MKV/WebM' },
  avi: { kind: 'video', label: 'AVI' },
  'mpeg-ts': { kind: 'video', label: 'MPEG-TS' },
  obj: { kind: 'mesh', label: 'OBJ' },
  gltf: { kind: 'mesh', label: 'glTF' },
  glb: { kind: 'mesh', label: 'GLB' },
  'ply-mesh': { kind: 'mesh', label: 'PLY with faces' },
};

/** Inputs processing knows: the processor that reads the format, or null when none does. */
export function inputKind(format: string | null): InputKind | null {
  return format === null ? null : (PROCESSED[format as FileFormat]?.kind ?? null);
}

/** "a point cloud (LAS, LAZ, ...), a video (MP4/MOV, ...) or a mesh (OBJ, ...)": what a bundle's input may be, from the table. */
export function processedFormatsText(): string {
  const labels = (kind: InputKind) =>
    Object.values(PROCESSED)
      .filter((entry) => entry.kind === kind)
      .map((entry) => entry.label)
      .join(', ');
  return `a point cloud (${labels('point-cloud')}), a video (${labels('video')}) or a mesh (${labels('mesh')}, with its material and texture files)`;
}
