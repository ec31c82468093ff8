import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { openPointCloud } from '../../src/processing/point-clouds/open-point-cloud.js';

/**
 * The points of a point cloud as a binary PCD (PCL's format) with x y z as floats and rgb
 * packed in a 32-bit word, so PCL's tools work on the same points as ours. PCL keeps
 * coordinates in single precision, so they are written relative to the cloud's declared
 * minimum, where a float keeps millimetres.
 */
export async function writePcdOf(input: string, output: string): Promise<number> {
  const reader = await openPointCloud(input);
  const count = reader.header.pointCount;
  const origin = reader.header.declaredBounds?.min;
  if (count === undefined || !origin) throw new Error('writePcdOf needs a header with the point count and bounds (LAS)');
  const out = createWriteStream(output);
  out.write(
    [
      '# .PCD v0.7 - written by the point-cloud bench',
      'VERSION 0.7',
      'FIELDS x y z rgb',
      'SIZE 4 4 4 4',
      'TYPE F F F U',
      'COUNT 1 1 1 1',
      `WIDTH ${count}`,
      'HEIGHT 1',
      'VIEWPOINT 0 0 0 1 0 0 0',
      `POINTS ${count}`,
      'DATA binary',
      '',
    ].join('\n'),
    'latin1',
  );
  let written = 0;
  for await (const batch of reader.batches()) {
    const body = Buffer.alloc(batch.count * 16);
    for (let i = 0; i < batch.count; i += 1) {
      const at = i * 16;
      body.writeFloatLE(batch.positions[i * 3]! - origin[0], at);
      body.writeFloatLE(batch.positions[i * 3 + 1]! - origin[1], at + 4);
      body.writeFloatLE(batch.positions[i * 3 + 2]! - origin[2], at + 8);
      const c = batch.colors;
      body.writeUInt32LE(c ? (c[i * 3]! << 16) | (c[i * 3 + 1]! << 8) | c[i * 3 + 2]! : 0, at + 12);
    }
    written += batch.count;
    if (!out.write(body)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  if (written !== count) throw new Error(`expected ${count} points, read ${written}`);
  return written;
}
