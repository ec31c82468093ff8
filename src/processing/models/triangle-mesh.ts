import { ProcessingError } from '../processing-error.js';

/**
 * An indexed triangle mesh in typed arrays: `positions` holds x, y, z per vertex, `indices`
 * three vertex numbers per triangle. Every reader produces one; the preview writer and the
 * thumbnail rasterizer take one.
 */
export interface TriangleMesh {
  positions: Float32Array;
  indices: Uint32Array;
}

export interface MeshBounds {
  min: [number, number, number];
  max: [number, number, number];
}

/** A reason the user can act on; the job stores it as the model's failure_reason. */
export function unreadableModel(message: string): ProcessingError {
  return new ProcessingError('unsupported-content', message);
}

/** A Float32Array that grows by doubling, so a streamed file is never held as JS numbers. */
export class GrowableFloat32 {
  array = new Float32Array(1024);
  length = 0;

  push3(x: number, y: number, z: number): void {
    if (this.length + 3 > this.array.length) this.array = grow(this.array, new Float32Array(this.array.length * 2));
    this.array[this.length] = x;
    this.array[this.length + 1] = y;
    this.array[this.length + 2] = z;
    this.length += 3;
  }

  /** The filled part, trimmed (a copy, so the doubled slack is freed). */
  trimmed(): Float32Array {
    return this.array.slice(0, this.length);
  }
}

/** A Uint32Array that grows by doubling. */
export class GrowableUint32 {
  array = new Uint32Array(1024);
  length = 0;

  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.array.length) this.array = grow(this.array, new Uint32Array(this.array.length * 2));
    this.array[this.length] = a;
    this.array[this.length + 1] = b;
    this.array[this.length + 2] = c;
    this.length += 3;
  }

  push(value: number): void {
    if (this.length + 1 > this.array.length) this.array = grow(this.array, new Uint32Array(this.array.length * 2));
    this.array[this.length++] = value;
  }

  trimmed(): Uint32Array {
    return this.array.slice(0, this.length);
  }
}

function grow<T extends Float32Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

export function meshBounds(positions: Float32Array): MeshBounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < positions.length; i += 3) {
    for (let c = 0; c < 3; c += 1) {
      const value = positions[i + c]!;
      if (value < min[c]!) min[c] = value;
      if (value > max[c]!) max[c] = value;
    }
  }
  return { min, max };
}

/** The area of triangle (a, b, c) of `positions`: the simplifier sizes its grid by the total. */
export function triangleArea(positions: Float32Array, a: number, b: number, c: number): number {
  const ax = positions[a * 3]!;
  const ay = positions[a * 3 + 1]!;
  const az = positions[a * 3 + 2]!;
  const ux = positions[b * 3]! - ax;
  const uy = positions[b * 3 + 1]! - ay;
  const uz = positions[b * 3 + 2]! - az;
  const vx = positions[c * 3]! - ax;
  const vy = positions[c * 3 + 1]! - ay;
  const vz = positions[c * 3 + 2]! - az;
  const nx = uy * vz - uz * vy;
  const ny = uz * vx - ux * vz;
  const nz = ux * vy - uy * vx;
  return Math.sqrt(nx * nx + ny * ny + nz * nz) / 2;
}

/**
 * Checks what every reader must guarantee before the mesh is written: at least one triangle,
 * finite coordinates, indices within the vertices. Throws a readable reason otherwise.
 */
export function checkMesh(mesh: TriangleMesh, what: string): void {
  if (mesh.indices.length < 3) throw unreadableModel(`The ${what} has no triangles to preview`);
  for (let i = 0; i < mesh.positions.length; i += 1) {
    if (!Number.isFinite(mesh.positions[i]!)) {
      throw unreadableModel(`The ${what} has a vertex whose coordinate is not a finite number (vertex ${Math.floor(i / 3) + 1})`);
    }
  }
  const vertices = mesh.positions.length / 3;
  for (let i = 0; i < mesh.indices.length; i += 1) {
    if (mesh.indices[i]! >= vertices) {
      throw unreadableModel(
        `The ${what} has a triangle that refers to vertex ${mesh.indices[i]! + 1}, but it has only ${vertices} vertices`,
      );
    }
  }
}

/** Drops vertices no triangle uses (a reader may keep them), renumbering the indices. */
export function withoutUnusedVertices(mesh: TriangleMesh): TriangleMesh {
  const vertices = mesh.positions.length / 3;
  const renumbered = new Int32Array(vertices).fill(-1);
  let used = 0;
  for (let i = 0; i < mesh.indices.length; i += 1) {
    const v = mesh.indices[i]!;
    if (renumbered[v] === -1) renumbered[v] = used++;
  }
  if (used === vertices) return mesh;
  const positions = new Float32Array(used * 3);
  for (let v = 0; v < vertices; v += 1) {
    const to = renumbered[v]!;
    if (to < 0) continue;
    positions[to * 3] = mesh.positions[v * 3]!;
    positions[to * 3 + 1] = mesh.positions[v * 3 + 1]!;
    positions[to * 3 + 2] = mesh.positions[v * 3 + 2]!;
  }
  const indices = new Uint32Array(mesh.indices.length);
  for (let i = 0; i < indices.length; i += 1) indices[i] = renumbered[mesh.indices[i]!]!;
  return { positions, indices };
}

/**
 * Unit vertex normals, each the area-weighted sum of its triangles' normals. A vertex of only
 * degenerate triangles gets +Y: the glTF validator refuses a NORMAL that is not unit length.
 */
export function vertexNormals(mesh: TriangleMesh): Float32Array {
  const { positions, indices } = mesh;
  const normals = new Float32Array(positions.length);
  for (let t = 0; t < indices.length; t += 3) {
    const a = indices[t]! * 3;
    const b = indices[t + 1]! * 3;
    const c = indices[t + 2]! * 3;
    const ux = positions[b]! - positions[a]!;
    const uy = positions[b + 1]! - positions[a + 1]!;
    const uz = positions[b + 2]! - positions[a + 2]!;
    const vx = positions[c]! - positions[a]!;
    const vy = positions[c + 1]! - positions[a + 1]!;
    const vz = positions[c + 2]! - positions[a + 2]!;
    const nx = uy * vz - uz * vy;
    const ny = uz * vx - ux * vz;
    const nz = ux * vy - uy * vx;
    for (const v of [a, b, c]) {
      normals[v] = normals[v]! + nx;
      normals[v + 1] = normals[v + 1]! + ny;
      normals[v + 2] = normals[v + 2]! + nz;
    }
  }
  for (let v = 0; v < normals.length; v += 3) {
    const length = Math.hypot(normals[v]!, normals[v + 1]!, normals[v + 2]!);
    if (length > 1e-30 && Number.isFinite(length)) {
      normals[v] = normals[v]! / length;
      normals[v + 1] = normals[v + 1]! / length;
      normals[v + 2] = normals[v + 2]! / length;
    } else {
      normals[v] = 0;
      normals[v + 1] = 1;
      normals[v + 2] = 0;
    }
  }
  return normals;
}
