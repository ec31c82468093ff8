import { NAME_MAX_LENGTH } from '../nodes/hierarchy.js';
import { nodeBlobPrefix } from '../uploads/blob-key.js';
import { TILESET_FORMAT } from './tileset-files.js';

/**
 * What a processing makes: a derivative node beside its bundle, linked to it
 * (docs/design/hierarchy.md#derivatives), whose bytes are one stored object under the derivative's
 * prefix. No I/O.
 */

/** What a processor produced: a point cloud's tileset, a mesh's tileset, or a video's reconstruction. */
export type ProcessorOutput = 'point-cloud' | 'mesh' | 'video';

/** The derivative an output becomes: its node kind, the suffix of its name, its stored object's format. */
export function derivativeOf(output: ProcessorOutput) {
  if (output === 'point-cloud') return { nodeKind: 'pointCloud', nameSuffix: ' (point cloud)', format: TILESET_FORMAT };
  if (output === 'mesh') return { nodeKind: 'mesh', nameSuffix: ' (mesh)', format: TILESET_FORMAT };
  return { nodeKind: 'mesh', nameSuffix: ' (mesh)', format: 'reconstruction' };
}

/** The derivative takes the processing's id: its bytes can be found (and removed) even if the job dies half-way. */
export function derivativeBlobPrefix(orgId: string, processingId: string): string {
  return nodeBlobPrefix(orgId, processingId);
}

/** The bundle's name with the suffix, the name cut short so that the whole fits a node name. */
export function derivativeName(bundleName: string, suffix: string): string {
  const chars = [...bundleName];
  const room = NAME_MAX_LENGTH - [...suffix].length;
  return `${chars.length > room ? chars.slice(0, room).join('') : bundleName}${suffix}`;
}
