import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processMesh, tileMeshFiles } from '../../src/processing/meshes/mesh-processor.js';
import { ProcessingError } from '../../src/processing/processing-error.js';
import { ecefOfLocal, MUNICH_UTM_32N, UTM_32N_WKT, utmPlace } from '../support/georeferencing.js';
import {
  type UploadFiles,
  writeColoredPly,
  writeTexturedGlb,
  writeTexturedGltf,
  writeTexturedObj,
} from '../support/mesh-samples.js';
import { checkedThumbnail } from '../support/model-checks.js';
import { checkTileset } from '../support/tileset-checker.js';

/** Whether the tile of this content has children. */
function hasChildren(tile: TileJson, uri: string): boolean | undefined {
  if (tile.content.uri === uri) return (tile.children?.length ?? 0) > 0;
  for (const child of tile.children ?? []) {
    const found = hasChildren(child, uri);
    if (found !== undefined) return found;
  }
  return undefined;
}

interface TileJson {
  geometricError: number;
  refine?: string;
  content: { uri: string };
  children?: TileJson[];
}

interface TileFacts {
  triangles: number;
  attributes: Set<string>;
  /** Widths of the tile's base colour textures. */
  textureWidths: number[];
  /** Every value of each COLOR_0 channel seen (normalized bytes). */
  channels: Set<number>[];
}

const io = new NodeIO();

async function tileFacts(file: string): Promise<TileFacts> {
  const document = await io.readBinary(new Uint8Array(await readFile(file)));
  const facts: TileFacts = {
    triangles: 0,
    attributes: new Set(),
    textureWidths: [],
    channels: [0, 1, 2, 3].map(() => new Set()),
  };
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      facts.triangles += primitive.getIndices()!.getCount() / 3;
      for (const semantic of primitive.listSemantics()) facts.attributes.add(semantic);
      const image = primitive.getMaterial()?.getBaseColorTexture()?.getImage();
      if (image) facts.textureWidths.push(PNG.sync.read(Buffer.from(image)).width);
      const colors = primitive.getAttribute('COLOR_0')?.getArray() ?? [];
      for (let i = 0; i < colors.length; i += 1) facts.channels[i % 4]!.add(colors[i]!);
    }
  }
  return facts;
}

/**
 * Walks the tree checking the levels of detail: a parent has fewer triangles than its children
 * together and a geometric error strictly above each child's; leaves have 0. Returns the
 * leaves' triangles and every tile's facts.
 */
async function checkLevels(out: string, tile: TileJson, all: TileFacts[]): Promise<{ leafTriangles: number; facts: TileFacts }> {
  const facts = await tileFacts(path.join(out, tile.content.uri));
  all.push(facts);
  if (!tile.children) {
    expect(tile.geometricError).toBe(0);
    return { leafTriangles: facts.triangles, facts };
  }
  let leafTriangles = 0;
  let childTriangles = 0;
  for (const child of tile.children) {
    expect(child.geometricError).toBeLessThan(tile.geometricError);
    const below = await checkLevels(out, child, all);
    leafTriangles += below.leafTriangles;
    childTriangles += below.facts.triangles;
  }
  expect(facts.triangles).toBeGreaterThan(0);
  expect(facts.triangles).toBeLessThan(childTriangles);
  return { leafTriangles, facts };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-mesh-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// 160 x 100 cells: 32,000 triangles; leaves of at most 2,500 make three levels: 16 leaves, 4 parents, the root.
const COLUMNS = 160;
const ROWS = 100;
const TRIANGLES = COLUMNS * ROWS * 2;
const LEAF = 2_500;

/** A COLOR_0 channel the sample gives one value: its number and that value as a normalized byte. */
type ConstantChannel = [number, number] | undefined;

/** The most triangles of a part read into memory: 4,000 cuts the OBJ into 16 parts of about 2,000, each one leaf. */
const PART = 4_000;

const kinds: [string, string, (dir: string) => Promise<UploadFiles>, string[], ConstantChannel, number?][] = [
  [
    'OBJ with its MTL and a PNG texture',
    'terrain.obj',
    (d) => writeTexturedObj(d, COLUMNS, ROWS),
    ['NORMAL', 'POSITION', 'TEXCOORD_0'],
    undefined,
  ],
  [
    'OBJ cut into parts read one at a time',
    'terrain.obj',
    (d) => writeTexturedObj(d, COLUMNS, ROWS),
    ['NORMAL', 'POSITION', 'TEXCOORD_0'],
    undefined,
    PART,
  ],
  [
    'glTF with its .bin and image',
    'terrain.gltf',
    (d) => writeTexturedGltf(d, COLUMNS, ROWS),
    ['NORMAL', 'POSITION', 'TEXCOORD_0'],
    undefined,
  ],
  [
    'GLB with vertex colours',
    'terrain.glb',
    (d) => writeTexturedGlb(d, COLUMNS, ROWS),
    ['COLOR_0', 'NORMAL', 'POSITION', 'TEXCOORD_0'],
    [0, 200],
  ],
  [
    'PLY with faces and colours',
    'terrain.ply',
    (d) => writeColoredPly(d, COLUMNS, ROWS),
    ['COLOR_0', 'NORMAL', 'POSITION'],
    [2, 26],
  ],
];

describe('meshes to 3D Tiles', () => {
  for (const [kind, main, write, attributes, constant, partTriangles] of kinds) {
    it(`tiles a ${kind}: valid tiles, every triangle in a leaf, coarser parents`, async () => {
      const input = path.join(dir, `${main.replace('.', '-')}${partTriangles ? '-parts' : ''}`);
      await mkdir(input);
      const byName = await write(input);
      const out = path.join(input, 'out');
      const progress: number[] = [];
      const result = await tileMeshFiles({ main: byName.get(main)!, byName }, out, {
        leafTriangles: LEAF,
        partTriangles,
        onProgress: (fraction) => progress.push(fraction),
      });
      expect(result.kind).toBe('mesh');
      expect(result.triangles).toBe(TRIANGLES);
      expect(result.parts).toBe(partTriangles ? 16 : 1);
      expect(progress.at(-1)).toBe(1);
      // The terrain spans 100 m in x and in depth, its hills 4 m up and down.
      expect(result.bounds.min[0]).toBeCloseTo(0, 3);
      expect(result.bounds.max[0]).toBeCloseTo(100, 3);
      expect(result.bounds.max[1] - result.bounds.min[1]).toBeCloseTo(100, 3);
      expect(result.bounds.max[2] - result.bounds.min[2]).toBeGreaterThan(4);
      for (const file of result.files) expect((await stat(path.join(out, file))).size).toBeGreaterThan(0);

      const report = await checkTileset(out);
      expect(report.issues).toEqual([]);
      expect(report.tiles).toBe(result.files.filter((file) => file.endsWith('.glb')).length);

      const tileset = JSON.parse(await readFile(path.join(out, result.tilesetPath), 'utf8'));
      expect(tileset.root.refine).toBe('REPLACE');
      expect(tileset.root.children?.[0]?.children?.length).toBeGreaterThan(0);
      const all: TileFacts[] = [];
      const { leafTriangles, facts: root } = await checkLevels(out, tileset.root, all);
      expect(leafTriangles).toBe(TRIANGLES);
      for (const facts of all) expect([...facts.attributes].sort()).toEqual(attributes);
      if (attributes.includes('TEXCOORD_0')) {
        for (const facts of all) expect(facts.textureWidths.length).toBe(1);
        // Leaves cut the 256-pixel texture to their part; the root has it whole, reduced.
        expect(Math.max(...all.flatMap((facts) => facts.textureWidths))).toBeLessThan(256);
        expect(root.textureWidths[0]).toBeLessThanOrEqual(256 / 4);
      }
      if (constant) {
        // The GLB's red is 200 in every vertex; the PLY's blue is 90 in sRGB, 26 once linear as glTF's COLOR_0 is.
        const [channel, value] = constant;
        for (const facts of all) expect([...facts.channels[channel]!]).toEqual([value]);
        // The other channels vary over the terrain: colours are kept per vertex, not flattened.
        expect(root.channels[(channel + 1) % 3]!.size).toBeGreaterThan(10);
      }
      checkedThumbnail(await readFile(path.join(out, result.thumbnailPath)));
    });
  }

  it('places an OBJ with a .prj beside it on the globe, its millimetres kept', async () => {
    const input = path.join(dir, 'projected');
    await mkdir(input);
    const origin: [number, number, number] = [MUNICH_UTM_32N.x + 0.123, MUNICH_UTM_32N.y + 0.456, MUNICH_UTM_32N.z];
    const byName = await writeTexturedObj(input, 40, 20, { projected: { origin, prj: UTM_32N_WKT } });
    const out = path.join(input, 'out');
    // 1,600 triangles in four parts of about 400.
    const result = await tileMeshFiles({ main: byName.get('terrain.obj')!, byName }, out, {
      leafTriangles: 300,
      partTriangles: 500,
    });
    expect(result.parts).toBe(4);
    const georeference = result.georeference;
    if (!georeference.georeferenced) throw new Error(`not georeferenced: ${JSON.stringify(georeference)}`);
    expect(georeference.crs).toBe('EPSG:32632');
    // The frame's origin is the mesh's centre, in the file's coordinates: 100 m east and north of the corner, terrain height between.
    expect(georeference.origin[0]).toBeCloseTo(origin[0] + 50, 3);
    expect(georeference.origin[1]).toBeCloseTo(origin[1] - 50, 3);
    const tileset = JSON.parse(await readFile(path.join(out, 'tileset.json'), 'utf8'));
    expect(tileset.root.transform).toEqual(georeference.transform);
    expect(tileset.asset.extras.georeference).toMatchObject({ georeferenced: true, crs: 'EPSG:32632' });
    // The transform puts the origin where proj4 puts it (1 cm).
    const expected = utmPlace(32, georeference.origin).ecef;
    const placed = ecefOfLocal(georeference.transform, [0, 0, 0]);
    for (let axis = 0; axis < 3; axis += 1) expect(Math.abs(placed[axis]! - expected[axis]!)).toBeLessThan(0.01);
    expect((await checkTileset(out)).issues).toEqual([]);

    // Every leaf vertex, back in UTM, is on the input's grid (every 2.5 m east, 5 m north) and at its height, within a millimetre.
    const height = (x: number, z: number) => 4 * Math.sin(x / 9) * Math.cos(z / 13) + 0.02 * x;
    const seen = new Set<string>();
    for (const file of result.files.filter((name) => name.endsWith('.glb'))) {
      const document = await io.readBinary(new Uint8Array(await readFile(path.join(out, file))));
      const node = document.getRoot().listNodes()[0]!;
      const [tx, ty, tz] = node.getTranslation();
      const leaf = hasChildren(tileset.root, file) === false;
      if (!leaf) continue;
      for (const primitive of node.getMesh()!.listPrimitives()) {
        const positions = primitive.getAttribute('POSITION')!.getArray()!;
        for (let v = 0; v < positions.length; v += 3) {
          // glTF (x, y, z) is the tileset's (x, -z, y): east, north, up relative to the origin.
          const east = georeference.origin[0] + positions[v]! + tx;
          const north = georeference.origin[1] - (positions[v + 2]! + tz);
          const up = georeference.origin[2] + positions[v + 1]! + ty;
          const x = east - origin[0];
          const z = origin[1] - north;
          expect(Math.abs(x / 2.5 - Math.round(x / 2.5)) * 2.5).toBeLessThan(0.001);
          expect(Math.abs(z / 5 - Math.round(z / 5)) * 5).toBeLessThan(0.001);
          expect(Math.abs(up - origin[2] - height(Math.round(x / 2.5) * 2.5, Math.round(z / 5) * 5))).toBeLessThan(0.001);
          seen.add(`${Math.round(x / 2.5)},${Math.round(z / 5)}`);
        }
      }
    }
    // The leaves hold every vertex of the 41 x 21 grid.
    expect(seen.size).toBe(41 * 21);
  });

  it('processes a mesh with the default leaf size: one leaf under its root', async () => {
    const input = path.join(dir, 'default');
    await mkdir(input);
    const byName = await writeTexturedGlb(input, 120, 100);
    const result = await processMesh({ main: byName.get('terrain.glb')!, byName }, path.join(input, 'out'));
    expect(result.triangles).toBe(24_000);
    expect(result.files).toEqual(['tileset.json', 'tiles/r.glb', 'thumbnail.png']);
    expect((await checkTileset(path.join(input, 'out'))).issues).toEqual([]);
  });

  it('keeps a JPEG texture whole in every tile of an OBJ whose map_Kd is a JPEG: valid tiles, each image image/jpeg', async () => {
    const input = path.join(dir, 'jpeg');
    await mkdir(input);
    const byName = await writeTexturedObj(input, COLUMNS, ROWS, { jpeg: true });
    const jpeg = await readFile(byName.get('ground.jpg')!);
    // ffmpeg's JPEG: the SOI marker, then a JFIF or Exif segment.
    expect([...jpeg.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const out = path.join(input, 'out');
    const result = await tileMeshFiles({ main: byName.get('terrain.obj')!, byName }, out, { leafTriangles: LEAF });
    expect(result.triangles).toBe(TRIANGLES);
    const glbs = result.files.filter((file) => file.endsWith('.glb'));
    expect(glbs.length).toBe(21);
    // Every tile through the Khronos glTF Validator (checkTileset): no error, the JPEG included.
    const report = await checkTileset(out);
    expect(report.issues).toEqual([]);
    expect(report.tiles).toBe(glbs.length);
    for (const file of glbs) {
      const document = await io.readBinary(new Uint8Array(await readFile(path.join(out, file))));
      const textures = document.getRoot().listTextures();
      expect(textures.map((texture) => texture.getMimeType())).toEqual(['image/jpeg']);
      // Kept whole: the uploaded file's bytes, neither cut nor reduced (docs/processing.md, "Meshes").
      expect(Buffer.from(textures[0]!.getImage()!).equals(jpeg)).toBe(true);
    }
  });

  for (const [what, files, missing] of [
    ['OBJ without its MTL', (d: string) => writeTexturedObj(d, 4, 4, { mtl: false }), 'terrain.mtl'],
    ['MTL without its texture', (d: string) => writeTexturedObj(d, 4, 4, { png: false }), 'ground.png'],
    [
      'glTF without its .bin',
      async (d: string) => {
        const byName = await writeTexturedGltf(d, 4, 4);
        byName.delete('terrain.bin');
        return byName;
      },
      'terrain.bin',
    ],
  ] as const) {
    it(`fails a ${what}, naming the missing file`, async () => {
      const input = path.join(dir, `missing-${missing}`);
      await mkdir(input);
      const byName = await files(input);
      const main = [...byName.keys()].find((name) => /\.(obj|gltf)$/.test(name))!;
      const failure = await processMesh({ main: byName.get(main)!, byName }, path.join(input, 'out')).catch(
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(ProcessingError);
      expect((failure as ProcessingError).code).toBe('unsupported-content');
      expect((failure as Error).message).toContain(`references ${missing}, which is not among the uploaded files`);
    });
  }
});
