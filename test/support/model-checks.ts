import { validateBytes } from 'gltf-validator';
import { PNG } from 'pngjs';
import { expect } from 'vitest';

export interface GlbJson {
  meshes: { primitives: { attributes: Record<string, number>; indices?: number; mode?: number }[] }[];
  accessors: { count: number; min?: number[]; max?: number[] }[];
}

/** The preview checked by the Khronos validator (0 errors) and its JSON chunk, for the caller to look into. */
export async function checkedPreview(glb: Uint8Array): Promise<GlbJson> {
  const report = await validateBytes(glb, { maxIssues: 50 });
  expect(report.issues.messages.filter((m) => m.severity === 0)).toEqual([]);
  expect(report.issues.numErrors).toBe(0);
  const buffer = Buffer.from(glb);
  const jsonLength = buffer.readUInt32LE(12);
  const json = JSON.parse(buffer.toString('utf8', 20, 20 + jsonLength)) as GlbJson;
  const [primitive] = json.meshes[0]!.primitives;
  expect(Object.keys(primitive!.attributes).sort()).toEqual(['NORMAL', 'POSITION']);
  expect(primitive!.indices).toBeTypeOf('number');
  expect(primitive!.mode ?? 4).toBe(4);
  return json;
}

/** The thumbnail decodes as a 256 x 256 PNG of which at least `share` is not the background. */
export function checkedThumbnail(png: Buffer, share = 0.1): void {
  const image = PNG.sync.read(png);
  expect([image.width, image.height]).toEqual([256, 256]);
  const background = [image.data[0], image.data[1], image.data[2]];
  let drawn = 0;
  const shades = new Set<number>();
  for (let at = 0; at < image.data.length; at += 4) {
    if (image.data[at] !== background[0] || image.data[at + 1] !== background[1] || image.data[at + 2] !== background[2]) {
      drawn += 1;
      shades.add(image.data[at]!);
    }
  }
  expect(drawn / (256 * 256)).toBeGreaterThan(share);
  // Shaded, not a silhouette: the faces turned differently to the light differ.
  expect(shades.size).toBeGreaterThanOrEqual(3);
}
