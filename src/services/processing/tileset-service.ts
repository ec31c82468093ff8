import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { NodeRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { GZIP_SUFFIX, hasTileset, storedGzipped, TILESET_FORMAT, tilesetFile } from '../../domain/processing/tileset-files.js';
import type { BlobInfo, BlobStore } from '../../ports/blob-store.js';
import type { NodeService } from '../node-service.js';
import { AdmittedReads } from './admitted-reads.js';

/** A file of a derivative's tileset, ready to send: where its bytes are and what they are. */
export interface TilesetFileToSend {
  key: string;
  contentType: string;
  size: number;
  /** Bare, as the blob store gives it. */
  etag: string;
  /** How the stored bytes are encoded: 'gzip' for a tile stored gzipped (tileset-files.ts), else none. */
  encoding?: 'gzip';
}

/** How many files' size and ETag are kept: a viewer of a few large tilesets, each of thousands of tiles. */
const KNOWN_FILES = 50_000;
export interface TilesetServiceOptions {
  blobs: Pick<BlobStore, 'head'>;
  /** The derivative's stored object: where its files are. */
  storedObjects: Pick<UploadRepository, 'findObject'>;
  nodes: Pick<NodeService, 'authorize'>;
}

/**
 * The tileset and tiles that processing wrote for a point cloud or a mesh, served to whoever may read the
 * derivative node (node reads' rules: another organization's node answers like a missing one).
 */
export class TilesetService {
  /**
   * Size and ETag of the files already served, by blob key. A derivative's files never change
   * (tile-routes.ts), so an entry stays true while the file exists; the access check still runs
   * on every request, and a file deleted since is the read's 404. It saves the blob store's HEAD per tile: on the filesystem an open, a stat and the
   * metadata file's read; on S3 a round trip.
   */
  private readonly known = new Map<string, BlobInfo>();
  /** Each derivative's tileset folder, by node id (see folder()). */
  private readonly folders = new Map<string, string>();
  /** Whether each folder's tiles are stored gzipped (see gzippedTiles()). */
  private readonly tileEncodings = new Map<string, boolean>();
  /** Reads admitted in the last second, by caller and derivative (a trashed or deleted one shows within the second). */
  private readonly admitted = new AdmittedReads<NodeRow>();

  constructor(private readonly options: TilesetServiceOptions) {}

  /**
   * Anything that is not a file processing wrote for this derivative's tileset is 404: a path
   * that does not name one, a node that is no processed point cloud or mesh (a video's
   * reconstruction has no tileset format: folder()), a file the store lacks.
   * `rawPath` is relative to the tileset's folder, as the request sent it (domain tilesetFile).
   */
  async file(principal: Principal, derivativeId: string, rawPath: string): Promise<TilesetFileToSend> {
    const node = await this.authorizeRead(principal, derivativeId);
    const notFound = () => new ApiError('NotFound', 'No such file in the tileset of this node');
    if (!hasTileset(node.kind)) throw notFound();
    const folder = this.folders.get(node.id) ?? (await this.folder(node.id));
    if (folder === undefined) throw notFound();
    return this.fileIn(folder, rawPath, notFound);
  }

  /**
   * A file of the tileset written under `folder` (a comparison's, say: docs/comparisons.md), for a
   * caller whose access is checked already; 404 for a path that names none, or a file the store lacks.
   */
  async fileIn(
    folder: string,
    rawPath: string,
    notFound = () => new ApiError('NotFound', 'No such file in this tileset'),
  ): Promise<TilesetFileToSend> {
    const file = tilesetFile(rawPath);
    if (!file) throw notFound();
    const key = `${folder}${file.path}`;
    const gzipped = storedGzipped(file.path) ? await this.gzippedTiles(folder, key) : false;
    const stored = gzipped ? `${key}${GZIP_SUFFIX}` : key;
    const info = this.known.get(stored) ?? (await this.head(stored));
    if (!info) throw notFound();
    return {
      key: stored,
      contentType: file.contentType,
      size: info.size,
      etag: info.etag,
      ...(gzipped ? { encoding: 'gzip' } : {}),
    };
  }

  /**
   * Whether a derivative's tiles are stored gzipped, learnt from the first tile asked for (all
   * of a derivative's tiles are stored the same way; one processed before they were gzipped has
   * none so). Unknown while neither form of that tile exists: a path no tile has.
   */
  private async gzippedTiles(folder: string, key: string): Promise<boolean> {
    const known = this.tileEncodings.get(folder);
    if (known !== undefined) return known;
    const gzipped = this.known.has(`${key}${GZIP_SUFFIX}`) || (await this.head(`${key}${GZIP_SUFFIX}`)) !== undefined;
    if (gzipped || (await this.head(key))) remember(this.tileEncodings, folder, gzipped, KNOWN_FILES / 10);
    return gzipped;
  }

  private authorizeRead(principal: Principal, derivativeId: string): Promise<NodeRow> {
    return this.admitted.get(principal, derivativeId, () => this.options.nodes.authorize(principal, derivativeId, 'read'));
  }

  /**
   * The folder processing wrote, from the derivative's stored object (its id is the node's). Only
   * a finalized one is remembered: nothing changes it after (it goes only with its node, which the
   * access check then refuses).
   */
  private async folder(derivativeId: string): Promise<string | undefined> {
    const output = await this.options.storedObjects.findObject(derivativeId);
    if (output?.purpose !== 'derivative' || output.state !== 'finalized' || output.format !== TILESET_FORMAT) return undefined;
    remember(this.folders, derivativeId, output.blob_key, KNOWN_FILES / 10);
    return output.blob_key;
  }

  private async head(key: string): Promise<BlobInfo | undefined> {
    const info = await this.options.blobs.head(key);
    if (info) remember(this.known, key, { size: info.size, etag: info.etag }, KNOWN_FILES);
    return info;
  }
}

/** Adds an entry, the oldest going first when full (a Map iterates in insertion order). */
function remember<T>(map: Map<string, T>, key: string, value: T, limit: number): void {
  if (map.size >= limit) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
