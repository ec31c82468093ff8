import { PNG } from 'pngjs';
import { boxObj } from './model-samples.js';

/**
 * Mesh inputs as a client uploads them (docs/processing.md, "Mesh inputs"), built in the test:
 * an OBJ with its MTL and a texture, PLY headers, GLB containers. The box itself is
 * model-samples.ts's.
 */

/** A real PNG of noise, `side` pixels square: about 3 x side² bytes (noise does not compress). */
export function noiseTexture(side: number, seed = 1): Buffer {
  const png = new PNG({ width: side, height: side });
  let state = seed;
  for (let at = 0; at < png.data.length; at += 1) {
    state = (state * 1103515245 + 12345) >>> 0;
    png.data[at] = at % 4 === 3 ? 255 : state >>> 24;
  }
  return PNG.sync.write(png);
}

/** The box OBJ (it names box.mtl), its MTL (naming box.png) and a texture of `side` pixels. */
export function texturedBoxFiles(side = 160): { name: string; bytes: Buffer }[] {
  return [
    { name: 'box.obj', bytes: Buffer.from(boxObj()) },
    { name: 'box.mtl', bytes: Buffer.from('# a material\nnewmtl grey\nKd 0.8 0.8 0.8\nmap_Kd box.png\n') },
    { name: 'box.png', bytes: noiseTexture(side) },
  ];
}

/** An ASCII PLY of one triangle whose header declares `faces` faces (finalize reads only the header). */
export function plyDeclaringFaces(faces: number): Buffer {
  const header = ['ply', 'format ascii 1.0', 'element vertex 3', 'property float x', 'property float y', 'property float z'];
  header.push(`element face ${faces}`, 'property list uchar int vertex_indices', 'end_header');
  return Buffer.from(`${header.join('\n')}\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n`);
}

/** A GLB of its header and JSON chunk only: what finalize reads of it, declaring what `json` says. */
export function glbOfJson(json: unknown): Buffer {
  let text = JSON.stringify(json);
  while (text.length % 4 !== 0) text += ' ';
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.write('JSON', 16, 'latin1');
  return Buffer.concat([header, Buffer.from(text, 'latin1')]);
}
