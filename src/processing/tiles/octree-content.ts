import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Box } from './octree-box.js';
import { pointContentGlb } from './point-content.js';
import type { PointRecords } from './spill-file.js';

/** Where tiles go and what they carry: the part of the octree's settings a tile's file needs. */
export interface ContentSettings {
  contentDir: string;
  contentRoot: string;
  withColors: boolean;
  intensityRange?: [number, number];
  withClassification: boolean;
  withDistance?: boolean;
  origin?: [number, number, number];
}

/** Writes a tile of `count` records from `first`; its name relative to `contentRoot`. */
export async function writeContent(
  settings: ContentSettings,
  address: string,
  box: Box,
  records: PointRecords,
  first: number,
  count: number,
): Promise<string> {
  const file = path.join(settings.contentDir, `${address}.glb`);
  await writeFile(file, pointContentGlb(box, records, first, count, settings, settings.origin));
  return path.relative(settings.contentRoot, file).split(path.sep).join('/');
}
