import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelFormat } from '../../src/domain/library/model-formats.js';
import { type ConvertOptions, convertModel } from '../../src/processing/models/convert-model.js';
import { ProcessingError } from '../../src/processing/processing-error.js';
import { checkedPreview, checkedThumbnail } from '../support/model-checks.js';
import {
  BOX_MAX,
  BOX_MIN,
  BOX_TRIANGLES,
  boxGlb,
  boxGltf,
  boxObj,
  boxPly,
  boxStlAscii,
  boxStlBinary,
  gridObjText,
} from '../support/model-samples.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'rdp-model-preview-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

let converted = 0;
/** Writes the original, converts it into a folder of its own. */
async function convert(format: ModelFormat, bytes: string | Buffer, options?: ConvertOptions) {
  converted += 1;
  const original = path.join(dir, `original-${converted}`);
  const output = path.join(dir, `output-${converted}`);
  await fs.writeFile(original, bytes);
  await fs.mkdir(output);
  return convertModel({ path: original, format }, output, options);
}

describe('model previews: every previewable format into a GLB and a PNG', () => {
  const boxes: [string, ModelFormat, () => Promise<string | Buffer> | string | Buffer][] = [
    ['OBJ with quads, negative indices and every v/vt/vn form', 'obj', boxObj],
    ['binary STL', 'stl', boxStlBinary],
    ['ASCII STL', 'stl', boxStlAscii],
    ['ASCII PLY with quad faces', 'ply', () => boxPly('ascii')],
    ['binary PLY with quad faces', 'ply', () => boxPly('binary')],
    ['GLB (with a node transform)', 'glb', boxGlb],
    ['glTF with a data: buffer', 'gltf', () => boxGltf()],
  ];

  it.each(boxes)('converts a box as %s', async (_name, format, bytes) => {
    const preview = await convert(format, await bytes());
    expect(preview.triangles).toBe(BOX_TRIANGLES);
    expect(preview.sourceTriangles).toBe(BOX_TRIANGLES);
    expect(preview.bounds).toEqual({ min: [...BOX_MIN], max: [...BOX_MAX] });
    const json = await checkedPreview(await fs.readFile(preview.previewPath));
    const primitive = json.meshes[0]!.primitives[0]!;
    expect(json.accessors[primitive.indices!]!.count).toBe(3 * BOX_TRIANGLES);
    expect(json.accessors[primitive.attributes.POSITION!]).toMatchObject({ min: [...BOX_MIN], max: [...BOX_MAX] });
    checkedThumbnail(await fs.readFile(preview.thumbnailPath), 0.25);
  });

  it('fails with a readable reason naming the problem', async () => {
    const cases: [ModelFormat, string | Buffer, RegExp][] = [
      [
        'obj',
        'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n',
        /OBJ file cannot be read: a face refers to vertex 9, but 3 vertices are defined before it \(line 4\)/,
      ],
      ['obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n', /refers to vertex -4/],
      ['obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n', /refers to vertex 0/],
      ['obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\n', /OBJ file has no faces/],
      // Truncated in the middle of a face, and of a vertex.
      ['obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2', /a face has 2 corners; it needs at least 3 \(line 4\)/],
      ['obj', 'v 0 0 0\nv 1 0 0\nv 0 1', /a vertex has fewer than 3 coordinates \(line 3\)/],
      ['obj', 'v 0 0 zero\nf 1 1 1\n', /a vertex coordinate "zero" is not a number/],
      [
        'stl',
        boxStlBinary().subarray(0, 200),
        /^The STL file cannot be read: it ends before the data its header announces \(truncated\?\)$/,
      ],
      [
        'ply',
        boxPly('binary').subarray(0, boxPly('binary').length - 10),
        /^The PLY file cannot be read: it ends before the data its header announces/,
      ],
      [
        'ply',
        boxPly('ascii')
          .toString()
          .replace(/element face 6[\s\S]*?end_header/, 'end_header')
          .replace(/\n4 .*/g, ''),
        /PLY file has no faces \(a point cloud\)/,
      ],
      ['glb', (await boxGlb()).subarray(0, 60), /^The GLB file cannot be read: /],
      [
        'obj',
        'v 0 0 0\nv 1 1 1\nv 2 2 2\nf 1 2 3\n',
        /^Every triangle of the model has zero area: there is no surface to preview$/,
      ],
      ['gltf', await boxGltf('box.bin'), /glTF file refers to the external file "box.bin", which was not uploaded with it/],
      ['gltf', '{"asset":{"version":"2.0"},"scenes":[{"nodes":[]}],"scene":0}', /glTF file has no triangles to preview/],
    ];
    for (const [format, bytes, reason] of cases) {
      const failure = await convert(format, bytes).catch((error: unknown) => error);
      expect(failure, `${format}: ${String(bytes).slice(0, 40)}`).toBeInstanceOf(ProcessingError);
      expect((failure as Error).message).toMatch(reason);
    }
  });

  it('simplifies a mesh beyond the budget by vertex clustering: under the budget, the same bounds, still valid', async () => {
    let obj = '';
    gridObjText(100, 100, (text) => {
      obj += text;
    });
    const budget = 5000;
    const streamed = await convert('obj', obj, { budget });
    expect(streamed.sourceTriangles).toBe(20_000);
    expect(streamed.triangles).toBeLessThanOrEqual(budget);
    expect(streamed.triangles).toBeGreaterThan(budget / 10);
    // The grid spans x and z 0..100; clustering moves its border vertices in by under a cell.
    expect(streamed.bounds.min[0]).toBeLessThan(5);
    expect(streamed.bounds.max[0]).toBeGreaterThan(95);
    expect(streamed.bounds.max[2]).toBeGreaterThan(95);
    await checkedPreview(await fs.readFile(streamed.previewPath));
    checkedThumbnail(await fs.readFile(streamed.thumbnailPath));

    // The in-memory path (STL, PLY, glTF): the same mesh as an ASCII STL.
    const triangles = [...obj.matchAll(/^f (\d+) (\d+) (\d+)$/gm)].map((f) => f.slice(1).map(Number));
    const vertices = [...obj.matchAll(/^v (\S+) (\S+) (\S+)$/gm)].map((v) => v.slice(1).join(' '));
    const stl = `solid grid\n${triangles.map((t) => `facet normal 0 0 0\nouter loop\n${t.map((v) => `vertex ${vertices[v - 1]}`).join('\n')}\nendloop\nendfacet`).join('\n')}\nendsolid grid\n`;
    const inMemory = await convert('stl', stl, { budget });
    expect(inMemory.sourceTriangles).toBe(20_000);
    expect(inMemory.triangles).toBeLessThanOrEqual(budget);
    expect(inMemory.triangles).toBeGreaterThan(budget / 10);
    await checkedPreview(await fs.readFile(inMemory.previewPath));

    // Within the budget nothing is dropped.
    expect((await convert('obj', obj, { budget: 20_000 })).triangles).toBe(20_000);
  });
});
