import { execFile } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { Document, NodeIO } from '@gltf-transform/core';
import { PNG } from 'pngjs';

const run = promisify(execFile);

/**
 * Textured meshes built in the test (no binary files in the repository): a terrain of
 * columns x rows cells, two triangles each, over 100 x 100 m with hills (or flat, at height 0),
 * its UVs spanning a generated PNG (or a JPEG made of it by ffmpeg) once. glTF's frame (y up);
 * the PLY is written z up, as scans are.
 */
export interface Terrain {
  positions: Float32Array;
  normals: Float32Array;
  uvs: Float32Array;
  indices: Uint32Array;
  triangles: number;
}

export function terrain(columns: number, rows: number, flat = false): Terrain {
  const vertices = (columns + 1) * (rows + 1);
  const positions = new Float32Array(vertices * 3);
  const normals = new Float32Array(vertices * 3);
  const uvs = new Float32Array(vertices * 2);
  const height = (x: number, z: number) => (flat ? 0 : 4 * Math.sin(x / 9) * Math.cos(z / 13) + 0.02 * x);
  for (let j = 0; j <= rows; j += 1) {
    for (let i = 0; i <= columns; i += 1) {
      const v = j * (columns + 1) + i;
      const x = (100 * i) / columns;
      const z = (100 * j) / rows;
      positions.set([x, height(x, z), z], v * 3);
      const dx = (height(x + 0.01, z) - height(x - 0.01, z)) / 0.02;
      const dz = (height(x, z + 0.01) - height(x, z - 0.01)) / 0.02;
      const length = Math.hypot(dx, 1, dz);
      normals.set([-dx / length, 1 / length, -dz / length], v * 3);
      uvs.set([i / columns, j / rows], v * 2);
    }
  }
  const indices = new Uint32Array(columns * rows * 6);
  let at = 0;
  for (let j = 0; j < rows; j += 1) {
    for (let i = 0; i < columns; i += 1) {
      const a = j * (columns + 1) + i;
      const b = a + 1;
      const c = a + columns + 1;
      const d = c + 1;
      // Counter-clockwise seen from above (+y).
      indices.set([a, c, b, b, c, d], at);
      at += 6;
    }
  }
  return { positions, normals, uvs, indices, triangles: columns * rows * 2 };
}

/** A size x size PNG of colour bands and a checker, so a texture cut wrong shows. */
export function texturePng(size = 256): Buffer {
  const png = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y += 1) {
    for (let x = 0; x < size; x += 1) {
      const at = (y * size + x) * 4;
      const checker = ((x >> 4) + (y >> 4)) % 2 === 0 ? 40 : 0;
      png.data[at] = Math.round((255 * x) / size) - checker * Math.sign(x);
      png.data[at + 1] = Math.round((255 * y) / size);
      png.data[at + 2] = 120 + checker;
      png.data[at + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** The files of an upload, by name. */
export type UploadFiles = Map<string, string>;

/**
 * terrain.obj (v, vt, vn, f v/vt/vn), terrain.mtl (Kd, map_Kd ground.png) and ground.png, written
 * in pieces. `flat`: the terrain without its hills; `jpeg`: the texture is ground.jpg, the PNG
 * encoded as a JPEG by Debian's ffmpeg (none of our dependencies encodes JPEG).
 */
export async function writeTexturedObj(
  dir: string,
  columns: number,
  rows: number,
  options: {
    mtl?: boolean;
    png?: boolean;
    textureSize?: number;
    flat?: boolean;
    jpeg?: boolean;
    /** Written z-up in projected coordinates around this point (easting, northing, height), with terrain.prj holding `prj`. */
    projected?: { origin: [number, number, number]; prj: string };
  } = {},
): Promise<UploadFiles> {
  const mesh = terrain(columns, rows, options.flat);
  const texture = options.jpeg ? 'ground.jpg' : 'ground.png';
  const projected = options.projected;
  // glTF's (x, y, z) is (east, up, -north): z-up it is (x, -z, y), moved to the origin; directions only turn.
  const written = (name: 'v' | 'vt' | 'vn', values: number[]): number[] => {
    if (!projected || name === 'vt') return values;
    const [x, y, z] = values as [number, number, number];
    if (name === 'vn') return [x, -z, y];
    const [e, n, h] = projected.origin;
    return [e + x, n - z, h + y];
  };
  const obj = path.join(dir, 'terrain.obj');
  const fd = openSync(obj, 'w');
  try {
    writeSync(fd, '# a textured terrain\nmtllib terrain.mtl\no terrain\n');
    const vertices = mesh.positions.length / 3;
    for (const [name, array, size] of [
      ['v', mesh.positions, 3],
      ['vt', mesh.uvs, 2],
      ['vn', mesh.normals, 3],
    ] as const) {
      let text = '';
      for (let v = 0; v < vertices; v += 1) {
        // OBJ's texture v grows upward: flipped from glTF's.
        const values = Array.from(array.subarray(v * size, v * size + size), (value, k) =>
          name === 'vt' && k === 1 ? 1 - value : value,
        );
        text += `${name} ${written(name, values)
          .map((value) => value.toFixed(5))
          .join(' ')}\n`;
        if (text.length > 1 << 20) {
          writeSync(fd, text);
          text = '';
        }
      }
      writeSync(fd, text);
    }
    let text = 'usemtl ground\n';
    for (let t = 0; t < mesh.indices.length; t += 3) {
      const [a, b, c] = [mesh.indices[t]! + 1, mesh.indices[t + 1]! + 1, mesh.indices[t + 2]! + 1];
      text += `f ${a}/${a}/${a} ${b}/${b}/${b} ${c}/${c}/${c}\n`;
      if (text.length > 1 << 20) {
        writeSync(fd, text);
        text = '';
      }
    }
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  const files: UploadFiles = new Map([['terrain.obj', obj]]);
  if (projected) {
    files.set('terrain.prj', path.join(dir, 'terrain.prj'));
    await writeFile(files.get('terrain.prj')!, projected.prj);
  }
  if (options.mtl !== false) {
    await writeFile(path.join(dir, 'terrain.mtl'), `newmtl ground\nKd 1.0 1.0 1.0\nd 1\nmap_Kd -s 1 1 1 ${texture}\n`);
    files.set('terrain.mtl', path.join(dir, 'terrain.mtl'));
  }
  if (options.png !== false) {
    await writeFile(path.join(dir, 'ground.png'), texturePng(options.textureSize));
    if (options.jpeg) {
      await run('ffmpeg', ['-v', 'error', '-nostdin', '-y', '-i', path.join(dir, 'ground.png'), path.join(dir, texture)]);
      await rm(path.join(dir, 'ground.png'));
    }
    files.set(texture, path.join(dir, texture));
  }
  return files;
}

function terrainDocument(columns: number, rows: number, withColors: boolean): Document {
  const mesh = terrain(columns, rows);
  const document = new Document();
  const buffer = document.createBuffer('terrain').setURI('terrain.bin');
  const accessor = (array: Float32Array | Uint32Array | Uint8Array, type: 'VEC2' | 'VEC3' | 'VEC4' | 'SCALAR') =>
    document.createAccessor().setArray(array).setType(type).setBuffer(buffer);
  const texture = document.createTexture('ground').setImage(texturePng()).setMimeType('image/png').setURI('ground.png');
  const material = document.createMaterial('ground').setBaseColorTexture(texture);
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', accessor(mesh.positions, 'VEC3'))
    .setAttribute('NORMAL', accessor(mesh.normals, 'VEC3'))
    .setAttribute('TEXCOORD_0', accessor(mesh.uvs, 'VEC2'))
    .setIndices(accessor(mesh.indices, 'SCALAR'))
    .setMaterial(material);
  if (withColors) {
    const colors = new Uint8Array((mesh.positions.length / 3) * 4);
    for (let v = 0; v < colors.length / 4; v += 1) colors.set([200, 160 + (v % 90), 120, 255], v * 4);
    primitive.setAttribute('COLOR_0', accessor(colors, 'VEC4').setNormalized(true));
  }
  const node = document.createNode('terrain').setMesh(document.createMesh('terrain').addPrimitive(primitive));
  document.getRoot().setDefaultScene(document.createScene().addChild(node));
  return document;
}

/** terrain.gltf with its terrain.bin and ground.png beside it, referred to by uri. */
export async function writeTexturedGltf(dir: string, columns: number, rows: number): Promise<UploadFiles> {
  await new NodeIO().write(path.join(dir, 'terrain.gltf'), terrainDocument(columns, rows, false));
  return new Map(['terrain.gltf', 'terrain.bin', 'ground.png'].map((name) => [name, path.join(dir, name)]));
}

/** terrain.glb, its texture and vertex colours embedded. */
export async function writeTexturedGlb(dir: string, columns: number, rows: number): Promise<UploadFiles> {
  await writeFile(path.join(dir, 'terrain.glb'), await new NodeIO().writeBinary(terrainDocument(columns, rows, true)));
  return new Map([['terrain.glb', path.join(dir, 'terrain.glb')]]);
}

/** terrain.ply: binary, z up, per-vertex colours and faces. */
export async function writeColoredPly(dir: string, columns: number, rows: number): Promise<UploadFiles> {
  const mesh = terrain(columns, rows);
  const vertices = mesh.positions.length / 3;
  const header =
    `ply\nformat binary_little_endian 1.0\nelement vertex ${vertices}\nproperty float x\nproperty float y\nproperty float z\n` +
    `property uchar red\nproperty uchar green\nproperty uchar blue\nelement face ${mesh.triangles}\nproperty list uchar int vertex_indices\nend_header\n`;
  const body = Buffer.alloc(vertices * 15 + mesh.triangles * 13);
  let at = 0;
  for (let v = 0; v < vertices; v += 1) {
    const [x, y, z] = mesh.positions.subarray(v * 3, v * 3 + 3);
    // glTF's (x, y, z) is (x, -z, y) z up.
    body.writeFloatLE(x!, at);
    body.writeFloatLE(-z!, at + 4);
    body.writeFloatLE(y!, at + 8);
    body.writeUInt8(Math.round(255 * mesh.uvs[v * 2]!), at + 12);
    body.writeUInt8(Math.round(255 * mesh.uvs[v * 2 + 1]!), at + 13);
    body.writeUInt8(90, at + 14);
    at += 15;
  }
  for (let t = 0; t < mesh.triangles; t += 1) {
    body.writeUInt8(3, at);
    for (let k = 0; k < 3; k += 1) body.writeInt32LE(mesh.indices[t * 3 + k]!, at + 1 + k * 4);
    at += 13;
  }
  await writeFile(path.join(dir, 'terrain.ply'), Buffer.concat([Buffer.from(header, 'latin1'), body]));
  return new Map([['terrain.ply', path.join(dir, 'terrain.ply')]]);
}
