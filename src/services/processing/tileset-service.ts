import type { Principal } from '../../domain/access/principal.js';
import { ApiError } from '../../domain/errors.js';
import { hasTileset, tilesetFile } from '../../domain/processing/tileset-files.js';
import type { Platform, RegionContext } from '../../platform.js';
import type { NodeService } from '../node-service.js';

/** A file of a derivative's tileset, ready to send: where its bytes are and what they are. */
export interface TilesetFileToSend {
  key: string;
  contentType: string;
  size: number;
  /** Bare, as the blob store gives it. */
  etag: string;
}

/**
 * The tileset and tiles that processing wrote for a point cloud, served to whoever may read the
 * derivative node (node reads' rules: another organization's node answers like a missing one).
 */
export class TilesetService {
  constructor(
    private readonly platform: Platform,
    private readonly region: RegionContext,
    private readonly nodes: NodeService,
  ) {}

  /**
   * Anything that is not a file processing wrote for this derivative's tileset is 404: a path
   * that does not name one, a node that is no processed point cloud, a file the store lacks.
   * `rawPath` is relative to the tileset's folder, as the request sent it (domain tilesetFile).
   */
  async file(principal: Principal, derivativeId: string, rawPath: string): Promise<TilesetFileToSend> {
    const node = await this.nodes.authorize(principal, derivativeId, 'read');
    const notFound = () => new ApiError('NotFound', 'No such file in the tileset of this node');
    const file = tilesetFile(rawPath);
    if (!file || !hasTileset(node.kind)) throw notFound();
    // The derivative's stored object (its id is the node's) holds the folder processing wrote.
    const output = await this.region.uploads.findObject(node.id);
    if (output?.purpose !== 'derivative' || output.state !== 'finalized' || output.format !== '3d-tiles') throw notFound();
    const key = `${output.blob_key}${file.path}`;
    const info = await this.platform.blobs.head(key);
    if (!info) throw notFound();
    return { key, contentType: file.contentType, size: info.size, etag: info.etag };
  }
}
