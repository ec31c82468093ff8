import { Document, NodeIO } from '@gltf-transform/core';

/**
 * Small 3D models built in the test, in every previewable format (no binary files in the
 * repository): a box from (0, 0, 0) to (2, 1, 3), 8 corners and 6 quads, 12 triangles.
 */
export const BOX_MIN = [0, 0, 0] as const;
export const BOX_MAX = [2, 1, 3] as const;
export const BOX_TRIANGLES = 12;

const CORNERS: [number, number, number][] = [
  [0, 0, 0],
  [2, 0, 0],
  [2, 1, 0],
  [0, 1, 0],
  [0, 0, 3],
  [2, 0, 3],
  [2, 1, 3],
  [0, 1, 3],
];
/** Outward (counter-clockwise seen from outside) quads, as corner numbers from 0. */
const QUADS = [
  [0, 3, 2, 1],
  [4, 5, 6, 7],
  [0, 1, 5, 4],
  [2, 3, 7, 6],
  [1, 2, 6, 5],
  [0, 4, 7, 3],
] as const;

function boxTriangles(): [number, number, number][] {
  return QUADS.flatMap(([a, b, c, d]) => [
    [a, b, c],
    [a, c, d],
  ]);
}

/** The box as OBJ: quads, negative (relative) indices, and every v, v/vt, v//vn, v/vt/vn form. */
export function boxObj(): string {
  const lines = ['# a box', 'o box', 'mtllib box.mtl'];
  for (const [x, y, z] of CORNERS) lines.push(`v ${x}.0 ${y} ${z}e0`);
  lines.push('vt 0 0', 'vt 1 0', 'vt 1 1', 'vn 0 0 1', 'usemtl grey', 's off');
  const [q0, q1, q2, q3, q4, q5] = QUADS;
  const plain = (q: readonly number[]) => q.map((v) => `${v + 1}`).join(' ');
  lines.push(`f ${plain(q0)}`);
  lines.push(`f ${q1.map((v) => `${v + 1}/1`).join(' ')}`);
  lines.push(`f ${q2.map((v) => `${v + 1}//1`).join(' ')}`);
  lines.push(`f ${q3.map((v) => `${v + 1}/2/1`).join(' ')}`);
  // Negative indices count back from the last vertex read (8 here): -8 is the first.
  lines.push(`f ${q4.map((v) => `${v - 8}`).join(' ')}`);
  lines.push(`f\t${q5.map((v) => `${v - 8}/-1/-1`).join('  ')} # the last quad`);
  return `${lines.join('\r\n')}\r\n`;
}

export function boxStlAscii(): string {
  const lines = ['solid box'];
  for (const tri of boxTriangles()) {
    lines.push('  facet normal 0 0 0', '    outer loop');
    for (const v of tri) lines.push(`      vertex ${CORNERS[v]!.join(' ')}`);
    lines.push('    endloop', '  endfacet');
  }
  lines.push('endsolid box');
  return `${lines.join('\n')}\n`;
}

export function boxStlBinary(): Buffer {
  const triangles = boxTriangles();
  const bytes = Buffer.alloc(84 + 50 * triangles.length);
  bytes.write('binary box', 0, 'latin1');
  bytes.writeUInt32LE(triangles.length, 80);
  triangles.forEach((tri, t) => {
    const at = 84 + 50 * t;
    tri.forEach((v, k) => {
      for (let c = 0; c < 3; c += 1) bytes.writeFloatLE(CORNERS[v]![c]!, at + 12 + k * 12 + c * 4);
    });
  });
  return bytes;
}

/** PLY with quad faces, ASCII or binary little-endian. */
export function boxPly(encoding: 'ascii' | 'binary'): Buffer {
  const header = [
    'ply',
    `format ${encoding === 'ascii' ? 'ascii' : 'binary_little_endian'} 1.0`,
    'comment a box',
    `element vertex ${CORNERS.length}`,
    'property float x',
    'property float y',
    'property float z',
    `element face ${QUADS.length}`,
    'property list uchar int vertex_indices',
    'end_header',
  ].join('\n');
  if (encoding === 'ascii') {
    const body = [...CORNERS.map((c) => c.join(' ')), ...QUADS.map((q) => `4 ${q.join(' ')}`)].join('\n');
    return Buffer.from(`${header}\n${body}\n`);
  }
  const body = Buffer.alloc(CORNERS.length * 12 + QUADS.length * 17);
  let at = 0;
  for (const corner of CORNERS) for (const c of corner) at = body.writeFloatLE(c, at);
  for (const quad of QUADS) {
    at = body.writeUInt8(4, at);
    for (const v of quad) at = body.writeInt32LE(v, at);
  }
  return Buffer.concat([Buffer.from(`${header}\n`), body]);
}

/** The box as a glTF-Transform document: one node, moved by a translation so the reader's transforms count. */
function boxDocument(): Document {
  const document = new Document();
  const buffer = document.createBuffer();
  // The mesh is stored 10 units down x; the node moves it back.
  const positions = new Float32Array(CORNERS.flatMap(([x, y, z]) => [x - 10, y, z]));
  const indices = new Uint16Array(boxTriangles().flat());
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setIndices(document.createAccessor().setType('SCALAR').setArray(indices).setBuffer(buffer));
  const node = document.createNode('box').setTranslation([10, 0, 0]).setMesh(document.createMesh('box').addPrimitive(primitive));
  document.getRoot().setDefaultScene(document.createScene().addChild(node));
  return document;
}

export async function boxGlb(): Promise<Buffer> {
  return Buffer.from(await new NodeIO().writeBinary(boxDocument()));
}

/** glTF JSON whose one buffer is a data: URI; `externalBuffer` names a file instead. */
export async function boxGltf(externalBuffer?: string): Promise<string> {
  const { json, resources } = await new NodeIO().writeJSON(boxDocument(), { basename: 'box' });
  for (const buffer of json.buffers ?? []) {
    const bytes = resources[buffer.uri as string] as Uint8Array;
    buffer.uri = externalBuffer ?? `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;
  }
  return JSON.stringify(json);
}

/**
 * A height field of columns x rows quads as OBJ text (2 x columns x rows triangles), x from 0 to
 * columns, z from 0 to rows, y a gentle wave: a mesh of any size for the budget tests and the
 * bench, handed to `write` in pieces so it is never held whole.
 */
export function gridObjText(columns: number, rows: number, write: (text: string) => void): void {
  const lines: string[] = [];
  const flush = (force = false) => {
    if (force || lines.length >= 4096) {
      write(`${lines.join('\n')}\n`);
      lines.length = 0;
    }
  };
  for (let z = 0; z <= rows; z += 1) {
    for (let x = 0; x <= columns; x += 1) {
      lines.push(`v ${x} ${(Math.sin(x / 7) * Math.cos(z / 5) * 3).toFixed(4)} ${z}`);
      flush();
    }
  }
  const n = columns;
  for (let z = 0; z < rows; z += 1) {
    for (let x = 0; x < columns; x += 1) {
      const a = z * (n + 1) + x + 1;
      lines.push(`f ${a} ${a + n + 1} ${a + 1}`, `f ${a + 1} ${a + n + 1} ${a + n + 2}`);
      flush();
    }
  }
  flush(true);
}
