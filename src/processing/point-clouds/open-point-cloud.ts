import { open } from 'node:fs/promises';
import { DETECT_BYTES, detectPointCloudFormat } from '../../domain/processing/point-cloud-formats.js';
import { notCompatible } from '../processing-error.js';
import { openE57 } from './e57/e57-reader.js';
import { openLas } from './las-reader.js';
import type { LazChunkDecoder } from './laz-chunks.js';
import { openLaz } from './laz-reader.js';
import { openPly } from './ply-reader.js';
import type { PointCloudFormat, PointCloudReader } from './point-cloud.js';
import { openText } from './text-reader.js';

export async function readFirstBytes(path: string, length = DETECT_BYTES): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await file.read(bytes, 0, length, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The format of a file on disk from its first bytes; undefined when it is not a point cloud we read. */
export async function detectPointCloudFile(path: string): Promise<PointCloudFormat | undefined> {
  return detectPointCloudFormat(await readFirstBytes(path));
}

/**
 * Opens a point cloud by its content. With `expected`, a file whose real format differs is
 * refused (FileNotCompatible), so a renamed file cannot pass as another format. `helpers`
 * lend the readers other threads (LAZ chunks).
 */
export async function openPointCloud(
  path: string,
  expected?: PointCloudFormat,
  helpers: { decodeLazChunk?: LazChunkDecoder } = {},
): Promise<PointCloudReader> {
  const format = await detectPointCloudFile(path);
  if (!format) throw notCompatible('The content is not a point cloud in a supported format (LAS, LAZ, PLY, E57, XYZ, PTS)');
  if (expected && expected !== format)
    throw notCompatible(`The content is ${format.toUpperCase()}, not ${expected.toUpperCase()}`);
  switch (format) {
    case 'las':
      return openLas(path);
    case 'laz':
      return openLaz(path, helpers.decodeLazChunk);
    case 'ply':
      return openPly(path);
    case 'e57':
      return openE57(path);
    default:
      return openText(path, format);
  }
}
