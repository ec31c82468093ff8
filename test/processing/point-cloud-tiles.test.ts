import { mkdtemp, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processPointCloud } from '../../src/processing/point-cloud-processor.js';
import { writeLaz } from '../support/laz-writer.js';
import { sampleBounds, writeE57, writeLas, writePly, writePts, writeXyz } from '../support/point-cloud-samples.js';
import { SCAN_SOURCE } from '../support/terrestrial-scan.js';
import { checkTileset } from '../support/tileset-checker.js';

/** Every file under a tileset's folder, by relative path, with its bytes. */
async function filesOf(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const name of (await readdir(dir, { recursive: true })).sort()) {
    const bytes = await readFile(path.join(dir, name)).catch(() => undefined);
    if (bytes) files.set(name, bytes);
  }
  return files;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-tiles-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('point cloud to 3D Tiles', () => {
  it('tiles a LAS file through the spill path into a valid tileset with every point exactly once', async () => {
    const input = path.join(dir, 'input.las');
    const count = 60_000;
    await writeLas(input, count);
    const out = path.join(dir, 'las-out');
    const progress: number[] = [];
    // Small tiles and a small memory budget force both the streamed (spill) and in-memory builds.
    const result = await processPointCloud(input, out, {
      tilePoints: 4000,
      memoryPoints: 20_000,
      onProgress: (fraction) => progress.push(fraction),
    });
    expect(result.format).toBe('las');
    expect(result.pointCount).toBe(count);
    expect(result.attributes).toEqual(['position', 'color', 'intensity']);
    const expected = sampleBounds(count);
    for (let axis = 0; axis < 3; axis += 1) {
      expect(result.bounds.min[axis]).toBeCloseTo(expected.min[axis]!, 3);
      expect(result.bounds.max[axis]).toBeCloseTo(expected.max[axis]!, 3);
    }
    expect(result.files[0]).toBe('tileset.json');
    expect(result.files.filter((f) => f.endsWith('.glb')).length).toBeGreaterThan(8);

    const report = await checkTileset(out);
    expect(report.issues).toEqual([]);
    expect(report.points).toBe(count);
    expect(report.gltfWarnings).toBe(0);
    expect(report.tiles).toBe(result.files.filter((f) => f.endsWith('.glb')).length);

    const tileset = JSON.parse(await readFile(path.join(out, 'tileset.json'), 'utf8'));
    expect(tileset.root.refine).toBe('ADD');
    expect(tileset.root.children.length).toBeGreaterThan(1);
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(1);
    expect(progress.every((value, i) => i === 0 || value >= progress[i - 1]!)).toBe(true);

    const png = PNG.sync.read(await readFile(path.join(out, result.thumbnailPath)));
    expect([png.width, png.height]).toEqual([256, 256]);
    const background = [png.data[0], png.data[1], png.data[2]];
    let drawn = 0;
    for (let p = 0; p < png.width * png.height; p += 1) {
      if (png.data[p * 4] !== background[0] || png.data[p * 4 + 1] !== background[1] || png.data[p * 4 + 2] !== background[2])
        drawn += 1;
    }
    expect(drawn).toBeGreaterThan(png.width * png.height * 0.2);
  });

  it('gives the same thumbnail and tiles for the same input', async () => {
    const input = path.join(dir, 'again.xyz');
    await writeXyz(input, 3000, false);
    const a = await processPointCloud(input, path.join(dir, 'a'), { tilePoints: 500 });
    const b = await processPointCloud(input, path.join(dir, 'b'), { tilePoints: 500 });
    expect(a.files).toEqual(b.files);
    expect(await readFile(path.join(dir, 'a', a.thumbnailPath))).toEqual(await readFile(path.join(dir, 'b', b.thumbnailPath)));
    expect(a.attributes).toEqual(['position']);
    expect((await checkTileset(path.join(dir, 'a'))).issues).toEqual([]);
  });

  it('tiles every other format into valid tilesets', async () => {
    const inputs = [
      ['laz', (file: string) => writeLaz(file, 5000, 2000)],
      ['e57', (file: string) => writeE57(file, 5000)],
      ['ply', (file: string) => writePly(file, 5000, 'binary_little_endian')],
      ['pts', (file: string) => writePts(file, 5000)],
    ] as const;
    for (const [format, write] of inputs) {
      const input = path.join(dir, `input.${format}`);
      await write(input);
      const out = path.join(dir, `${format}-out`);
      const result = await processPointCloud(input, out, { tilePoints: 1000, memoryPoints: 3000 });
      expect(result.format).toBe(format);
      expect(result.pointCount).toBe(5000);
      const report = await checkTileset(out);
      expect(report.issues).toEqual([]);
      expect(report.points).toBe(5000);
    }
  });

  it('tiles on worker threads exactly as on one thread: the same files, byte for byte', async () => {
    // A terrestrial scan: dense near the station, sparse far, so the boxes are uneven and the
    // threads finish their tasks in a different order than one thread runs them.
    const input = path.join(dir, 'scan.las');
    const count = 120_000;
    await writeLas(input, count, '1.2', { source: SCAN_SOURCE });
    const options = { tilePoints: 2000, memoryPoints: 10_000 };
    const single = await processPointCloud(input, path.join(dir, 'scan-1'), { ...options, threads: 0 });
    const parallel = await processPointCloud(input, path.join(dir, 'scan-3'), { ...options, threads: 3 });
    expect(parallel.files).toEqual(single.files);
    const one = await filesOf(path.join(dir, 'scan-1'));
    const three = await filesOf(path.join(dir, 'scan-3'));
    expect([...three.keys()]).toEqual([...one.keys()]);
    expect(one.size).toBeGreaterThan(60);
    for (const [name, bytes] of one) expect(three.get(name)?.equals(bytes), name).toBe(true);
    const report = await checkTileset(path.join(dir, 'scan-3'));
    expect(report.issues).toEqual([]);
    expect(report.points).toBe(count);
  });

  it('streams boxes two levels a pass through segmented spills into the same files as one in-memory build, the spills holding the points about once', async () => {
    // A PLY declares no bounds, so the streamed root is the exact box the in-memory build uses.
    const input = path.join(dir, 'segments.ply');
    const count = 200_000;
    await writePly(input, count, 'binary_little_endian');
    // Small boxes in memory: boxes whose children are larger than that are split two levels
    // down in one pass (two-level-split.ts).
    const options = { tilePoints: 1000, memoryPoints: 4000, threads: 2 };
    const inMemory = await processPointCloud(input, path.join(dir, 'segments-memory'), {
      tilePoints: 1000,
      memoryPoints: count,
      threads: 0,
    });
    const whole = await processPointCloud(input, path.join(dir, 'segments-whole'), { ...options, segmentPoints: count });
    const segmented = await processPointCloud(input, path.join(dir, 'segments-1000'), { ...options, segmentPoints: 1000 });
    const loaded = await filesOf(path.join(dir, 'segments-memory'));
    expect(loaded.size).toBeGreaterThan(200);
    for (const out of ['segments-whole', 'segments-1000']) {
      const files = await filesOf(path.join(dir, out));
      expect([...files.keys()], out).toEqual([...loaded.keys()]);
      for (const [name, bytes] of loaded) expect(files.get(name)?.equals(bytes), `${out}/${name}`).toBe(true);
    }
    // Decoding parks every point, 32 bytes each; a pass moves them on, holding at most a partly
    // read segment a thread beyond them.
    expect(inMemory.spillPeakBytes).toBe(count * 32);
    expect(segmented.spillPeakBytes).toBeGreaterThanOrEqual(count * 32);
    expect(segmented.spillPeakBytes).toBeLessThanOrEqual((count + options.threads * 1000) * 32);
    // Removed only at the end of their pass, whole files hold a box's points twice meanwhile.
    expect(whole.spillPeakBytes).toBeGreaterThan(segmented.spillPeakBytes + 10 * 1000 * 32);
    expect((await checkTileset(path.join(dir, 'segments-1000'))).points).toBe(count);
  });

  it('decodes LAZ chunks on the worker threads into the same tiles as one thread decoding them all', async () => {
    const input = path.join(dir, 'scan.laz');
    const count = 60_000;
    await writeLaz(input, count, 4000, SCAN_SOURCE);
    const options = { tilePoints: 2000, memoryPoints: 10_000 };
    await processPointCloud(input, path.join(dir, 'laz-1'), { ...options, threads: 0 });
    const result = await processPointCloud(input, path.join(dir, 'laz-2'), { ...options, threads: 2 });
    expect(result.pointCount).toBe(count);
    const one = await filesOf(path.join(dir, 'laz-1'));
    const two = await filesOf(path.join(dir, 'laz-2'));
    expect([...two.keys()]).toEqual([...one.keys()]);
    for (const [name, bytes] of one) expect(two.get(name)?.equals(bytes), name).toBe(true);
    expect((await checkTileset(path.join(dir, 'laz-2'))).points).toBe(count);
  });

  it('tiles a LAS file whose header declares bounds too small: every point still in its tile, inside its box', async () => {
    const input = path.join(dir, 'lying.las');
    const count = 30_000;
    await writeLas(input, count);
    // The declared maximum x (offset 179) cut to the middle: half the points lie outside it.
    const file = await open(input, 'r+');
    const header = Buffer.alloc(227);
    await file.read(header, 0, 227, 0);
    header.writeDoubleLE((header.readDoubleLE(179) + header.readDoubleLE(187)) / 2, 179);
    await file.write(header, 0, 227, 0);
    await file.close();
    const out = path.join(dir, 'lying-out');
    const result = await processPointCloud(input, out, { tilePoints: 1000, memoryPoints: 5000, threads: 0 });
    expect(result.pointCount).toBe(count);
    const report = await checkTileset(out);
    expect(report.issues).toEqual([]);
    expect(report.points).toBe(count);
  });

  it('refuses content that is not a point cloud, and one whose format differs from the expected one', async () => {
    const input = path.join(dir, 'notes.las');
    await writeFile(input, 'These are meeting notes, not a scan.\n');
    await expect(processPointCloud(input, path.join(dir, 'x'))).rejects.toThrow(/not a point cloud/);
    const ply = path.join(dir, 'real.ply');
    await writePly(ply, 10, 'ascii');
    await expect(processPointCloud(ply, path.join(dir, 'y'), { expectedFormat: 'e57' })).rejects.toThrow(
      'The content is PLY, not E57',
    );
  });

  it('the checker itself catches a broken tileset', async () => {
    const input = path.join(dir, 'small.xyz');
    await writeXyz(input, 2000);
    const out = path.join(dir, 'broken');
    await processPointCloud(input, out, { tilePoints: 300 });
    const tileset = JSON.parse(await readFile(path.join(out, 'tileset.json'), 'utf8'));
    tileset.asset.version = '1.0';
    tileset.root.children[0].geometricError = tileset.root.geometricError * 2;
    tileset.root.children[1].boundingVolume.box[0] += 1000;
    tileset.root.children[2].content.uri = 'tiles/missing.glb';
    await writeFile(path.join(out, 'tileset.json'), JSON.stringify(tileset));
    await writeFile(path.join(out, tileset.root.content.uri), Buffer.from('glTF not really'));
    const { issues } = await checkTileset(out);
    expect(issues.some((i) => i.includes('asset.version'))).toBe(true);
    expect(issues.some((i) => i.includes('exceeds its parent'))).toBe(true);
    expect(issues.some((i) => i.includes("not inside its parent's box"))).toBe(true);
    expect(issues.some((i) => i.includes('does not resolve to a file'))).toBe(true);
    expect(issues.some((i) => i.includes('glTF Validator found'))).toBe(true);
  });
});
