import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectPointCloudFormat } from '../../src/domain/processing/point-cloud-formats.js';
import { openPointCloud } from '../../src/processing/point-clouds/open-point-cloud.js';
import type { PointCloudFormat } from '../../src/processing/point-clouds/point-cloud.js';
import { ProcessingError } from '../../src/processing/processing-error.js';
import { writeLaz } from '../support/laz-writer.js';
import { paginate, samplePoint, writeE57, writeLas, writePly, writePts, writeXyz } from '../support/point-cloud-samples.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-readers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function readAll(file: string, expected?: PointCloudFormat) {
  const reader = await openPointCloud(file, expected);
  const positions: number[] = [];
  const colors: number[] = [];
  const intensity: number[] = [];
  for await (const batch of reader.batches()) {
    for (const value of batch.positions.subarray(0, batch.count * 3)) positions.push(value);
    for (const value of batch.colors?.subarray(0, batch.count * 3) ?? []) colors.push(value);
    for (const value of batch.intensity?.subarray(0, batch.count) ?? []) intensity.push(value);
  }
  return { header: reader.header, positions, colors, intensity, count: positions.length / 3 };
}

function expectSamplePoints(read: Awaited<ReturnType<typeof readAll>>, count: number, tolerance: number) {
  expect(read.count).toBe(count);
  for (const i of [0, 1, Math.floor(count / 2), count - 1]) {
    const p = samplePoint(i, count);
    expect(read.positions[i * 3]).toBeCloseTo(p.x, tolerance);
    expect(read.positions[i * 3 + 1]).toBeCloseTo(p.y, tolerance);
    expect(read.positions[i * 3 + 2]).toBeCloseTo(p.z, tolerance);
    if (read.colors.length > 0) expect(read.colors.slice(i * 3, i * 3 + 3)).toEqual([p.r, p.g, p.b]);
  }
}

describe('point-cloud readers', () => {
  it('reads LAS 1.2 (point format 2) across batches with 16-bit colors scaled to 8', async () => {
    const file = path.join(dir, 'sample.las');
    await writeLas(file, 70_000);
    const read = await readAll(file, 'las');
    expect(read.header).toMatchObject({ format: 'las', pointCount: 70_000, attributes: ['position', 'color', 'intensity'] });
    expectSamplePoints(read, 70_000, 3);
    expect(read.intensity[69_999]).toBe(samplePoint(69_999, 70_000).intensity);
  });

  it('reads LAS 1.4 (point format 7, 64-bit count)', async () => {
    const file = path.join(dir, 'sample14.las');
    await writeLas(file, 1234, '1.4');
    const read = await readAll(file);
    expect(read.header.pointCount).toBe(1234);
    expectSamplePoints(read, 1234, 3);
  });

  it('reads every LAS point format 0-10 at its offsets, with extra bytes per record', async () => {
    for (let pointFormat = 0; pointFormat <= 10; pointFormat += 1) {
      const file = path.join(dir, `format-${pointFormat}.las`);
      await writeLas(file, 300, pointFormat >= 6 ? '1.4' : '1.2', { pointFormat, extraBytes: 3 });
      const read = await readAll(file, 'las');
      const colored = [2, 3, 5, 7, 8, 10].includes(pointFormat);
      expect(read.header.attributes).toEqual(colored ? ['position', 'color', 'intensity'] : ['position', 'intensity']);
      expectSamplePoints(read, 300, 3);
      expect(read.intensity[299]).toBe(299);
    }
  });

  it('reads LAZ (LASzip POINT10 v2, several chunks and a chunk table) through laz-perf', async () => {
    const file = path.join(dir, 'sample.laz');
    await writeLaz(file, 70_000, 30_000);
    const read = await readAll(file, 'laz');
    expect(read.header).toMatchObject({ format: 'laz', pointCount: 70_000, attributes: ['position', 'intensity'] });
    expectSamplePoints(read, 70_000, 3);
    expect(read.intensity[69_999]).toBe(samplePoint(69_999, 70_000).intensity);
    // Compressed, the file is far smaller than its 20-byte records.
    expect((await readFile(file)).length).toBeLessThan(70_000 * 20 * 0.25);
  });

  it('reads PLY ascii and binary little-endian with colors and intensity', async () => {
    for (const encoding of ['ascii', 'binary_little_endian'] as const) {
      const file = path.join(dir, `sample-${encoding}.ply`);
      await writePly(file, 500, encoding);
      const read = await readAll(file, 'ply');
      expect(read.header.attributes).toEqual(['position', 'color', 'intensity']);
      expectSamplePoints(read, 500, 4);
      expect(read.intensity[499]).toBe(499);
    }
  });

  it('reads XYZ with and without colors, and PTS with its count line and shifted intensity', async () => {
    const xyz = path.join(dir, 'sample.xyz');
    await writeXyz(xyz, 300);
    expectSamplePoints(await readAll(xyz, 'xyz'), 300, 9);
    const plain = path.join(dir, 'plain.xyz');
    await writeXyz(plain, 300, false);
    const read = await readAll(plain);
    expect(read.header.attributes).toEqual(['position']);
    expectSamplePoints(read, 300, 9);
    const pts = path.join(dir, 'sample.pts');
    await writePts(pts, 300);
    const ptsRead = await readAll(pts, 'pts');
    expectSamplePoints(ptsRead, 300, 9);
    expect(ptsRead.intensity[299]).toBe(299);
  });

  it('reads E57 over page boundaries, 12-bit packed intensity and the scan pose', async () => {
    const file = path.join(dir, 'sample.e57');
    await writeE57(file, 2500);
    const read = await readAll(file, 'e57');
    expect(read.header).toMatchObject({ format: 'e57', pointCount: 2500, attributes: ['position', 'color', 'intensity'] });
    expectSamplePoints(read, 2500, 9);
    expect(read.intensity.slice(0, 3)).toEqual([0, 1, 2]);
    expect(read.intensity[2499]).toBe(2499);

    const posed = path.join(dir, 'posed.e57');
    await writeE57(posed, 10, { pose: true });
    const moved = await readAll(posed);
    const p = samplePoint(3, 10);
    // A quarter turn about z, then (10, 20, 30).
    expect(moved.positions[9]).toBeCloseTo(-p.y + 10, 6);
    expect(moved.positions[10]).toBeCloseTo(p.x + 20, 6);
    expect(moved.positions[11]).toBeCloseTo(p.z + 30, 6);
  });

  it('reads E57 coordinates as single floats and as 17-bit scaled integers split across packets', async () => {
    const single = path.join(dir, 'single.e57');
    await writeE57(single, 3001, { coordinates: 'single' });
    expectSamplePoints(await readAll(single), 3001, 2);
    const scaled = path.join(dir, 'scaled.e57');
    await writeE57(scaled, 3001, { coordinates: 'scaled' });
    const read = await readAll(scaled);
    expectSamplePoints(read, 3001, 3);
    expect(read.intensity[3000]).toBe(3000);
  });

  it('refuses an E57 page whose checksum does not match', async () => {
    const file = path.join(dir, 'corrupt.e57');
    await writeE57(file, 500);
    const bytes = await readFile(file);
    bytes[1500] = bytes[1500]! ^ 0xff;
    await writeFile(file, bytes);
    await expect(readAll(file)).rejects.toThrow(/page 1 fails its CRC-32C/);
  });

  it('refuses E57 scans with spherical coordinates only', async () => {
    const xml = Buffer.from(
      '<e57Root type="Structure"><data3D type="Vector"><vectorChild type="Structure"><points type="CompressedVector" fileOffset="48" recordCount="0"><prototype type="Structure"><sphericalRange type="Float"/><sphericalAzimuth type="Float"/><sphericalElevation type="Float"/></prototype></points></vectorChild></data3D></e57Root>',
    );
    const logical = Buffer.concat([Buffer.alloc(48), xml]);
    logical.write('ASTM-E57', 0, 'latin1');
    logical.writeUInt32LE(1, 8);
    logical.writeBigUInt64LE(1024n, 16);
    logical.writeBigUInt64LE(48n, 24);
    logical.writeBigUInt64LE(BigInt(xml.length), 32);
    logical.writeBigUInt64LE(1024n, 40);
    const file = path.join(dir, 'spherical.e57');
    await writeFile(file, paginate(logical));
    await expect(openPointCloud(file)).rejects.toThrow(/spherical coordinates only are not supported/);
  });

  it('detects formats by content, not by name, and refuses a mismatch as not compatible', async () => {
    const las = path.join(dir, 'really-las.ply');
    await writeLas(las, 10);
    expect(detectPointCloudFormat(await readFile(las))).toBe('las');
    const refused = await openPointCloud(las, 'ply').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProcessingError);
    expect((refused as ProcessingError).code).toBe('not-compatible');
    expect((refused as ProcessingError).message).toBe('The content is LAS, not PLY');

    const laz = Buffer.from(await readFile(las));
    laz[104] = laz[104]! | 0x80;
    expect(detectPointCloudFormat(laz)).toBe('laz');
    expect(detectPointCloudFormat(Buffer.from('%PDF-1.7\n1 0 obj'))).toBeUndefined();
    expect(detectPointCloudFormat(Buffer.from('hello world\nthis is text\n'))).toBeUndefined();
    expect(detectPointCloudFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]))).toBeUndefined();

    const png = path.join(dir, 'image.las');
    await writeFile(png, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
    await expect(openPointCloud(png, 'las')).rejects.toThrow(/not a point cloud in a supported format/);
  });

  it('refuses a truncated LAS, a LAS posing as LAZ and a cut LAZ', async () => {
    const las = path.join(dir, 'short.las');
    await writeLas(las, 100);
    const bytes = await readFile(las);
    await writeFile(las, bytes.subarray(0, bytes.length - 10));
    await expect(openPointCloud(las)).rejects.toThrow(/truncated/);

    const laz = path.join(dir, 'broken.laz');
    const fake = Buffer.from(bytes);
    fake[104] = fake[104]! | 0x80;
    await writeFile(laz, fake);
    await expect(openPointCloud(laz, 'laz')).rejects.toThrow('The LAZ file has no LASzip description (VLR 22204)');

    const real = path.join(dir, 'cut.laz');
    await writeLaz(real, 5000, 1000);
    const whole = await readFile(real);
    await writeFile(real, whole.subarray(0, Math.floor(whole.length / 2)));
    await expect(openPointCloud(real)).rejects.toThrow('The LAZ chunk table offset is not valid');
  });
});
