/**
 * The files of a processed point cloud or mesh as the API serves them: the tileset at `tileset.json` and
 * its tile contents under `tiles/`, all relative to the derivative's folder, so that a viewer
 * resolves every content URI against the tileset's own address (3D Tiles 1.1 section 5.3).
 * The tiler writes exactly these names (src/processing/point-cloud-processor.ts).
 */
export const TILESET_FILE = 'tileset.json';
export const TILE_CONTENT_DIR = 'tiles';

/** Longer than any tile the tiler names (an octree address of at most 17 characters). */
export const MAX_TILE_PATH_LENGTH = 256;

/** The media type of each content extension the API serves; anything else is not a tile file. */
const CONTENT_TYPES: Record<string, string> = {
  glb: 'model/gltf-binary',
  b3dm: 'application/octet-stream',
  pnts: 'application/octet-stream',
  json: 'application/json',
};

/** A segment as blob keys allow it (domain/uploads/blob-key.ts), never `.` or `..`. */
const SEGMENT = /^[A-Za-z0-9_=-][A-Za-z0-9._=-]{0,199}$/;

/** The stored format of a derivative whose files are a tileset (derivatives.ts derivativeOf). */
export const TILESET_FORMAT = '3d-tiles';

/** The node kinds whose processing may write a tileset: point clouds, and meshes the mesh tiler made. */
export function hasTileset(kind: string): boolean {
  return kind === 'pointCloud' || kind === 'mesh';
}

/**
 * Whether a derivative serves a tileset, by its node kind and its stored object's format: a
 * video's reconstruction is a mesh node too, but its files are the reconstruction's own.
 */
export function servesTileset(derivative: { kind: string; format: string | null }): boolean {
  return hasTileset(derivative.kind) && derivative.format === TILESET_FORMAT;
}

/** A segment percent-decoded, or undefined when its encoding is broken. */
function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * A requested file of a derivative's tileset, from the path as the request sent it (not yet
 * percent-decoded: an encoded slash or backslash stays inside its segment and fails it): the
 * path relative to the derivative's folder and its media type, or undefined when the request
 * cannot name a file processing wrote (an absolute or parent path, a backslash, an empty or
 * dot segment, another folder or extension, too long, a broken escape).
 */
export function tilesetFile(rawPath: string): { path: string; contentType: string } | undefined {
  if (rawPath.length > MAX_TILE_PATH_LENGTH) return undefined;
  const segments = rawPath.split('/').map(decoded);
  if (!segments.every((segment): segment is string => segment !== undefined && SEGMENT.test(segment))) return undefined;
  const path = segments.join('/');
  if (path === TILESET_FILE) return { path, contentType: 'application/json' };
  if (segments.length < 2 || segments[0] !== TILE_CONTENT_DIR) return undefined;
  const extension = /\.([a-z0-9]+)$/.exec(segments.at(-1) ?? '')?.[1];
  const contentType = extension ? CONTENT_TYPES[extension] : undefined;
  return contentType ? { path, contentType } : undefined;
}

/**
 * How a tileset file is kept in the blob store (docs/processing.md, "Tiles on the wire"): a tile
 * (.glb) gzip-encoded under its name plus `.gz`, sent as it is to a client that accepts gzip;
 * anything else as written. A derivative processed before tiles were stored this way has its
 * tiles under their own names, and they are sent as they are.
 */
export const GZIP_SUFFIX = '.gz';

export function storedGzipped(path: string): boolean {
  return path.endsWith('.glb');
}
