import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  detectModelFormat,
  MAX_PREVIEW_SOURCE_BYTES,
  MODEL_DETECT_BYTES,
  type ModelFormat,
  previewPlan,
} from '../../src/domain/library/model-formats.js';
import { writeLaz } from '../support/laz-writer.js';
import { writeE57, writeLas, writePly, writeXyz } from '../support/point-cloud-samples.js';

/** A file's first MODEL_DETECT_BYTES and its size, as finalize will read them. */
async function headOf(path: string): Promise<{ head: Buffer; size: number }> {
  const { size } = await stat(path);
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, MODEL_DETECT_BYTES));
    await file.read(head, 0, head.length, 0);
    return { head, size };
  } finally {
    await file.close();
  }
}

/** A binary GLB: the 12-byte header, then a JSON chunk padded with spaces to four bytes. */
function glb(json: object, version = 2): Buffer {
  let text = JSON.stringify(json);
  while (text.length % 4 !== 0) text += ' ';
  const chunk = Buffer.alloc(8 + text.length);
  chunk.writeUInt32LE(text.length, 0);
  chunk.write('JSON', 4, 'latin1');
  chunk.write(text, 8, 'utf8');
  const header = Buffer.alloc(12);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(version, 4);
  header.writeUInt32LE(12 + chunk.length, 8);
  return Buffer.concat([header, chunk]);
}

/** A binary STL: an 80-byte header, the count, and 50 bytes per triangle (normal, 3 vertices, attribute). */
function binaryStl(triangles: number[][][], header = 'binary STL written by the test'): Buffer {
  const out = Buffer.alloc(84 + 50 * triangles.length);
  out.write(header.padEnd(80, ' '), 0, 'latin1');
  out.writeUInt32LE(triangles.length, 80);
  for (const [i, triangle] of triangles.entries()) {
    const base = 84 + 50 * i;
    for (const [j, value] of [[0, 0, 1], ...triangle].flat().entries()) out.writeFloatLE(value, base + 4 * j);
    out.writeUInt16LE(0, base + 48);
  }
  return out;
}

const TRIANGLE = [
  [0, 0, 0],
  [1, 0, 0],
  [0, 1, 0],
];

const ASCII_STL = `solid triangle
  facet normal 0 0 1
    outer loop
      vertex 0 0 0
      vertex 1 0 0
      vertex 0 1 0
    endloop
  endfacet
endsolid triangle
`;

const OBJ = `# written by the test
mtllib cube.mtl
o Triangle
v 0.0 0.0 0.0
v 1.0 0.0 0.0
v 0.0 1.0 -1.5e-3
vt 0 0
vn 0 0 1
usemtl steel
s off
f 1/1/1 2/1/1 3/1/1
`;

const IFC = `ISO-10303-21;
HEADER;
FILE_DESCRIPTION(('ViewDefinition [ReferenceView_V1.2]'),'2;1');
FILE_NAME('pump.ifc','2026-11-23T10:00:00',('rdp'),('rdp'),'test','test','');
FILE_SCHEMA(('IFC4'));
ENDSEC;
DATA;
#1=IFCPROJECT('0YvctVUKr0kugbFTf53O9L',$,'Plant',$,$,$,$,$,$);
ENDSEC;
END-ISO-10303-21;
`;

const STEP = IFC.replace("FILE_SCHEMA(('IFC4'));", "FILE_SCHEMA(('AUTOMOTIVE_DESIGN { 1 0 10303 214 1 1 1 1 }'));").replace(
  /#1=.*\n/,
  "#1=PRODUCT('pump','pump','',(#2));\n",
);

function text(value: string): Buffer {
  return Buffer.from(value, 'utf8');
}

/** Detects from the whole sample (all of it fits in the head) with its size. */
function detectWhole(bytes: Buffer) {
  return detectModelFormat(bytes, bytes.length);
}

describe('model formats from the bytes (domain/library/model-formats.ts)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'rdp-model-formats-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('knows glTF (JSON) and GLB, both previewable', () => {
    const json = { asset: { generator: 'rdp test', version: '2.0' }, scenes: [{ nodes: [] }], scene: 0 };
    expect(detectWhole(text(JSON.stringify(json, null, 2)))).toEqual({ format: 'gltf', previewable: true });
    // A byte order mark and white space before the object.
    expect(detectWhole(text(`\uFEFF\n  ${JSON.stringify(json)}`))?.format).toBe('gltf');
    expect(detectWhole(glb(json))).toEqual({ format: 'glb', previewable: true });
    expect(detectModelFormat(glb(json))?.format).toBe('glb');
    expect(detectWhole(glb(json, 1))?.format).toBe('glb');
  });

  it('refuses JSON that is not glTF, and a GLB whose header lies', () => {
    expect(detectWhole(text(JSON.stringify({ scenes: [] })))).toBeUndefined();
    expect(detectWhole(text(JSON.stringify({ asset: { generator: 'no version' } })))).toBeUndefined();
    expect(detectWhole(text('[1, 2, 3]'))).toBeUndefined();
    const sample = glb({ asset: { version: '2.0' } });
    // Its length field says more bytes than the file has (a cut upload), or another version.
    expect(detectModelFormat(sample, sample.length - 4)).toBeUndefined();
    expect(detectWhole(glb({ asset: { version: '2.0' } }, 3))).toBeUndefined();
    expect(detectWhole(sample.subarray(0, 8))).toBeUndefined();
  });

  it('knows OBJ by its statements; plain text, numbers alone (a point cloud) and OBJ without vertices are not', () => {
    expect(detectWhole(text(OBJ))).toEqual({ format: 'obj', previewable: true });
    expect(detectWhole(text(OBJ.replaceAll('\n', '\r\n')))?.format).toBe('obj');
    // A head cut in the middle of a line: the cut line is not judged.
    expect(detectModelFormat(text(`${OBJ}f 1/1/1 2/1/`))?.format).toBe('obj');
    expect(detectWhole(text('hello world\nthis is a note\n'))).toBeUndefined();
    expect(detectWhole(text('1.0 2.0 3.0\n4.0 5.0 6.0\n'))).toBeUndefined();
    expect(detectWhole(text('o Empty\ng group\n'))).toBeUndefined();
    expect(detectWhole(text(`${OBJ}unknown statement\n`))).toBeUndefined();
    expect(detectWhole(text('v 1 2\n'))).toBeUndefined();
  });

  it('knows ASCII STL by "solid" and "facet normal", binary STL by its size alone', () => {
    expect(detectWhole(text(ASCII_STL))).toEqual({ format: 'stl', previewable: true });
    expect(detectWhole(text('solid nothing here\nendsolid\n'))).toBeUndefined();
    const binary = binaryStl([TRIANGLE, TRIANGLE]);
    expect(detectWhole(binary)).toEqual({ format: 'stl', previewable: true });
    // Many exporters start the binary header with "solid" too; the size settles it.
    expect(detectWhole(binaryStl([TRIANGLE], 'solid exported by a CAD tool'))?.format).toBe('stl');
    // Without the size, or with a size that is not 84 + 50 * count, binary STL is not known.
    expect(detectModelFormat(binary)).toBeUndefined();
    expect(detectModelFormat(binary, binary.length + 1)).toBeUndefined();
    expect(detectModelFormat(binary, binary.length - 50)).toBeUndefined();
    expect(detectWhole(binaryStl([]))).toBeUndefined();
  });

  it('knows FBX, binary and ASCII, not previewable', () => {
    const binary = Buffer.alloc(64);
    binary.write('Kaydara FBX Binary  \x00\x1a\x00', 0, 'latin1');
    binary.writeUInt32LE(7400, 23);
    expect(detectWhole(binary)).toEqual({ format: 'fbx', previewable: false });
    expect(detectWhole(text('; FBX 7.4.0 project file\n; ----\nFBXHeaderExtension:  {\n}\n'))).toEqual({
      format: 'fbx',
      previewable: false,
    });
  });

  it('tells IFC from STEP by FILE_SCHEMA, neither previewable', () => {
    expect(detectWhole(text(IFC))).toEqual({ format: 'ifc', previewable: false });
    expect(detectWhole(text(IFC.replace("'IFC4'", "'IFC2X3'")))?.format).toBe('ifc');
    expect(detectWhole(text(STEP))).toEqual({ format: 'step', previewable: false });
  });

  it('knows the point clouds (PLY previewable; E57, LAS, LAZ not) from real files', async () => {
    const cases: [string, (path: string) => Promise<void>, ModelFormat, boolean][] = [
      ['ascii.ply', (path) => writePly(path, 20, 'ascii'), 'ply', true],
      ['binary.ply', (path) => writePly(path, 20, 'binary_little_endian'), 'ply', true],
      ['scan.e57', (path) => writeE57(path, 20), 'e57', false],
      ['scan.las', (path) => writeLas(path, 20), 'las', false],
      ['scan14.las', (path) => writeLas(path, 20, '1.4'), 'las', false],
      ['scan.laz', (path) => writeLaz(path, 20), 'laz', false],
    ];
    for (const [name, write, format, previewable] of cases) {
      const path = join(dir, name);
      await write(path);
      const { head, size } = await headOf(path);
      expect(detectModelFormat(head, size), name).toEqual({ format, previewable });
    }
  });

  it('answers undefined for the point-cloud text formats, empty bytes and other binaries', async () => {
    const path = join(dir, 'points.xyz');
    await writeXyz(path, 50);
    const { head, size } = await headOf(path);
    expect(detectModelFormat(head, size)).toBeUndefined();
    expect(detectModelFormat(new Uint8Array(0), 0)).toBeUndefined();
    expect(detectWhole(Buffer.from('\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR', 'latin1'))).toBeUndefined();
    expect(detectWhole(Buffer.from('PK\x03\x04\x14\x00', 'latin1'))).toBeUndefined();
    // A LAS header cut before the point format byte cannot tell LAS from LAZ.
    expect(detectWhole(Buffer.from('LASF'.padEnd(90, '\x00'), 'latin1'))).toBeUndefined();
  });

  it('reads a view into a larger buffer from its offset', () => {
    const padded = Buffer.concat([Buffer.from('garbage!'), text(ASCII_STL)]);
    const view = new Uint8Array(padded.buffer, padded.byteOffset + 8, padded.length - 8);
    expect(detectModelFormat(view, view.length)?.format).toBe('stl');
  });

  it('plans previews: browser formats up to 200 MiB; one byte more is OriginalTooLarge; others UnsupportedFormat', () => {
    expect(MAX_PREVIEW_SOURCE_BYTES).toBe(209_715_200);
    for (const format of ['gltf', 'glb', 'obj', 'stl', 'ply'] as const) {
      expect(previewPlan(format, MAX_PREVIEW_SOURCE_BYTES)).toEqual({ previewable: true });
      expect(previewPlan(format, MAX_PREVIEW_SOURCE_BYTES + 1)).toEqual({ previewable: false, reason: 'OriginalTooLarge' });
    }
    for (const format of ['fbx', 'ifc', 'step', 'e57', 'las', 'laz'] as const) {
      expect(previewPlan(format, 10)).toEqual({ previewable: false, reason: 'UnsupportedFormat' });
    }
  });
});
