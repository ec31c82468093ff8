import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import {
  GrowableFloat32,
  GrowableUint32,
  type MeshBounds,
  meshBounds,
  type TriangleMesh,
  triangleArea,
  unreadableModel,
} from './triangle-mesh.js';
import { clusterToBudget, PREVIEW_TRIANGLE_BUDGET } from './vertex-clustering.js';

/**
 * A streaming OBJ reader: `v` and `f` statements (every index form: v, v/vt, v//vn, v/vt/vn,
 * negative indices; polygons fanned into triangles); other statements are skipped. three's
 * OBJLoader holds the whole text, its line array and unindexed JS number arrays (measured: 790 MB
 * for a million triangles, docs/asset-library.md); this reads the bytes in chunks into typed
 * arrays that grow by doubling. The first pass keeps the vertices and, while they fit the
 * budget, the triangles; beyond it, a second pass feeds the faces to the vertex clustering.
 */
export async function readObj(
  path: string,
  options: {
    budget?: number;
    onProgress?: (fraction: number) => void;
    /** Told the original's triangle count once the first pass has read them. */
    onTriangles?: (count: number) => void;
    signal?: AbortSignal;
  } = {},
): Promise<TriangleMesh> {
  const budget = options.budget ?? PREVIEW_TRIANGLE_BUDGET;
  const size = (await stat(path)).size || 1;
  const firstPass = { signal: options.signal, onBytes: (bytes: number) => options.onProgress?.((0.5 * bytes) / size) };
  const secondPass = { signal: options.signal, onBytes: (bytes: number) => options.onProgress?.(0.5 + (0.5 * bytes) / size) };
  const vertices = new GrowableFloat32();
  let indices: GrowableUint32 | undefined = new GrowableUint32();
  let triangles = 0;
  let area = 0;
  await scanObj(path, firstPass, {
    vertex: (x, y, z) => vertices.push3(x, y, z),
    triangle: (a, b, c) => {
      triangles += 1;
      area += triangleArea(vertices.array, a, b, c);
      if (indices && triangles > budget) indices = undefined;
      indices?.push3(a, b, c);
    },
  });
  options.onTriangles?.(triangles);
  if (triangles === 0) throw unreadableModel('The OBJ file has no faces (f statements) to preview');
  const positions = vertices.trimmed();
  if (indices) return { positions, indices: indices.trimmed() };
  const bounds: MeshBounds = meshBounds(positions);
  return clusterToBudget(positions, bounds, area, (emit) => scanObj(path, secondPass, { triangle: emit }), budget);
}

export interface ObjVisitor {
  vertex?: (x: number, y: number, z: number) => void;
  triangle: (a: number, b: number, c: number) => void;
  /**
   * Mesh processing's extra statements (docs/processing.md, "Meshes"): with `face`, each face is
   * also given whole as v, vt, vn triples from 0 (-1 where a corner has none), and `vt`, `vn`,
   * `usemtl`, `mtllib` are read; the preview leaves them unset and skips those statements.
   */
  face?: (corners: Int32Array, count: number) => void;
  texcoord?: (u: number, v: number) => void;
  normal?: (x: number, y: number, z: number) => void;
  material?: (name: string) => void;
  library?: (name: string) => void;
}

const NEWLINE = 10;
const SPACE = 32;
const TAB = 9;
const CR = 13;
const HASH = 35;
const SLASH = 47;
const MINUS = 45;
const PLUS = 43;
const DOT = 46;
const ZERO = 48;
const NINE = 57;
const LOWER_E = 101;
const UPPER_E = 69;
const LOWER_V = 118;
const LOWER_F = 102;
const LOWER_T = 116;
const LOWER_N = 110;

/** Reads the file once, calling the visitor for each vertex and each triangle of the fanned faces. */
export async function scanObj(
  path: string,
  options: { onBytes?: (bytes: number) => void; signal?: AbortSignal },
  visitor: ObjVisitor,
): Promise<void> {
  const parser = new ObjLineParser(visitor);
  let carry: Buffer | undefined;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    options.signal?.throwIfAborted();
    const data = carry ? Buffer.concat([carry, chunk]) : chunk;
    const lastNewline = data.lastIndexOf(NEWLINE);
    if (lastNewline < 0) {
      carry = data;
      continue;
    }
    parser.parseLines(data, lastNewline + 1);
    carry = lastNewline + 1 < data.length ? Buffer.from(data.subarray(lastNewline + 1)) : undefined;
    options.onBytes?.(parser.bytes);
  }
  if (carry) parser.parseLines(Buffer.concat([carry, Buffer.from('\n')]), carry.length + 1);
}

class ObjLineParser {
  private vertexCount = 0;
  private texcoordCount = 0;
  private normalCount = 0;
  private line = 0;
  bytes = 0;
  private corners = new Uint32Array(64);
  private triples = new Int32Array(64 * 3);
  private pos = 0;
  private data: Buffer = Buffer.alloc(0);

  constructor(private readonly visitor: ObjVisitor) {}

  /** Parses the complete lines of data[0, end). */
  parseLines(data: Buffer, end: number): void {
    this.data = data;
    this.pos = 0;
    while (this.pos < end) {
      this.line += 1;
      this.skipBlanks();
      const first = data[this.pos];
      const second = data[this.pos + 1];
      if (first === LOWER_V && (second === SPACE || second === TAB)) {
        this.pos += 2;
        this.readVertex();
      } else if (first === LOWER_F && (second === SPACE || second === TAB)) {
        this.pos += 2;
        this.readFace();
      } else if (this.visitor.face) this.readOther(first, second, end);
      const newline = data.indexOf(NEWLINE, this.pos);
      this.pos = newline < 0 || newline >= end ? end : newline + 1;
    }
    this.bytes += end;
  }

  private readVertex(): void {
    const x = this.readNumber();
    const y = this.readNumber();
    const z = this.readNumber();
    if (!Number.isFinite(x + y + z)) this.fail('a vertex coordinate is out of range');
    this.vertexCount += 1;
    this.visitor.vertex?.(x, y, z);
  }

  /** vt, vn, usemtl and mtllib, for mesh processing. */
  private readOther(first: number | undefined, second: number | undefined, end: number): void {
    const third = this.data[this.pos + 2];
    if (first === LOWER_V && second === LOWER_T && (third === SPACE || third === TAB)) {
      this.pos += 3;
      const u = this.readNumber();
      // A missing v (a 1D texture coordinate) is 0, as the format says.
      this.skipBlanks();
      const c = this.data[this.pos];
      const v = c === undefined || c === NEWLINE || c === CR ? 0 : this.readNumber();
      this.texcoordCount += 1;
      this.visitor.texcoord?.(u, v);
    } else if (first === LOWER_V && second === LOWER_N && (third === SPACE || third === TAB)) {
      this.pos += 3;
      const x = this.readNumber();
      const y = this.readNumber();
      const z = this.readNumber();
      this.normalCount += 1;
      this.visitor.normal?.(x, y, z);
    } else {
      const newline = this.data.indexOf(NEWLINE, this.pos);
      const text = this.data.toString('utf8', this.pos, newline < 0 || newline >= end ? end : newline).trim();
      const [keyword, ...rest] = text.split(/\s+/);
      if (keyword === 'usemtl' && rest.length > 0) this.visitor.material?.(rest.join(' '));
      else if (keyword === 'mtllib') for (const name of rest) this.visitor.library?.(name);
    }
  }

  private readFace(): void {
    const full = this.visitor.face !== undefined;
    let count = 0;
    for (;;) {
      this.skipBlanks();
      const c = this.data[this.pos];
      if (c === undefined || c === NEWLINE || c === CR || c === HASH) break;
      const reference = this.readInteger();
      let texcoord = 0;
      let normal = 0;
      // v, v/vt, v//vn or v/vt/vn.
      if (this.data[this.pos] === SLASH) {
        this.pos += 1;
        if (this.data[this.pos] !== SLASH) texcoord = this.readInteger();
        if (this.data[this.pos] === SLASH) {
          this.pos += 1;
          normal = this.readInteger();
        }
      }
      const after = this.data[this.pos];
      if (after !== undefined && after !== SPACE && after !== TAB && after !== NEWLINE && after !== CR && after !== HASH)
        this.fail('a face corner is not an index');
      const vertex = reference > 0 ? reference - 1 : this.vertexCount + reference;
      if (reference === 0 || vertex < 0 || vertex >= this.vertexCount) {
        this.fail(`a face refers to vertex ${reference}, but ${this.vertexCount} vertices are defined before it`);
      }
      if (count === this.corners.length) {
        const corners = new Uint32Array(count * 2);
        corners.set(this.corners);
        this.corners = corners;
        const triples = new Int32Array(count * 6);
        triples.set(this.triples);
        this.triples = triples;
      }
      if (full) {
        this.triples[count * 3] = vertex;
        this.triples[count * 3 + 1] = this.resolve(texcoord, this.texcoordCount, 'texture coordinate');
        this.triples[count * 3 + 2] = this.resolve(normal, this.normalCount, 'normal');
      }
      this.corners[count++] = vertex;
    }
    if (count < 3) this.fail(`a face has ${count} corner${count === 1 ? '' : 's'}; it needs at least 3`);
    for (let k = 1; k + 1 < count; k += 1) this.visitor.triangle(this.corners[0]!, this.corners[k]!, this.corners[k + 1]!);
    this.visitor.face?.(this.triples, count);
  }

  /** A vt or vn reference from 0, -1 for none. */
  private resolve(reference: number, defined: number, what: string): number {
    if (reference === 0) return -1;
    const index = reference > 0 ? reference - 1 : defined + reference;
    if (index < 0 || index >= defined) this.fail(`a face refers to ${what} ${reference}, but ${defined} are defined before it`);
    return index;
  }

  private skipBlanks(): void {
    while (this.data[this.pos] === SPACE || this.data[this.pos] === TAB) this.pos += 1;
  }

  private readInteger(): number {
    let sign = 1;
    if (this.data[this.pos] === MINUS) {
      sign = -1;
      this.pos += 1;
    } else if (this.data[this.pos] === PLUS) this.pos += 1;
    const start = this.pos;
    let value = 0;
    for (let c = this.data[this.pos]; c !== undefined && c >= ZERO && c <= NINE; c = this.data[++this.pos])
      value = value * 10 + (c - ZERO);
    if (this.pos === start) this.fail('a face corner is not an index');
    return sign * value;
  }

  /** A decimal number read from the bytes, without making a string (the common case); others via parseFloat. */
  private readNumber(): number {
    this.skipBlanks();
    const data = this.data;
    const start = this.pos;
    let sign = 1;
    if (data[this.pos] === MINUS) {
      sign = -1;
      this.pos += 1;
    } else if (data[this.pos] === PLUS) this.pos += 1;
    let mantissa = 0;
    let digits = 0;
    let scale = 0;
    let c = data[this.pos];
    for (; c !== undefined && c >= ZERO && c <= NINE; c = data[++this.pos]) {
      mantissa = mantissa * 10 + (c - ZERO);
      digits += 1;
    }
    if (c === DOT) {
      for (c = data[++this.pos]; c !== undefined && c >= ZERO && c <= NINE; c = data[++this.pos]) {
        mantissa = mantissa * 10 + (c - ZERO);
        digits += 1;
        scale -= 1;
      }
    }
    if (c === LOWER_E || c === UPPER_E) {
      c = data[++this.pos];
      let expSign = 1;
      if (c === MINUS || c === PLUS) {
        expSign = c === MINUS ? -1 : 1;
        c = data[++this.pos];
      }
      let exponent = 0;
      for (; c !== undefined && c >= ZERO && c <= NINE; c = data[++this.pos]) exponent = exponent * 10 + (c - ZERO);
      scale += expSign * exponent;
    }
    if (digits === 0 || (c !== undefined && c !== SPACE && c !== TAB && c !== NEWLINE && c !== CR)) {
      while (data[this.pos] !== undefined && data[this.pos] !== SPACE && data[this.pos] !== TAB && data[this.pos] !== NEWLINE)
        this.pos += 1;
      const text = data.toString('latin1', start, this.pos).trim();
      this.fail(
        text === '' ? 'a vertex has fewer than 3 coordinates' : `a vertex coordinate "${text.slice(0, 40)}" is not a number`,
      );
    }
    if (digits > 15) return Number.parseFloat(data.toString('latin1', start, this.pos));
    return sign * (scale < 0 ? mantissa / 10 ** -scale : mantissa * 10 ** scale);
  }

  private fail(what: string): never {
    throw unreadableModel(`The OBJ file cannot be read: ${what} (line ${this.line})`);
  }
}
