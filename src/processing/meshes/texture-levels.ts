import { PNG } from 'pngjs';
import type { MeshTexture } from './textured-mesh.js';

/** A tile's texture: the image bytes, and how the tile's UVs map into it (u' = u * scale + offset). */
export interface TileTexture {
  bytes: Uint8Array;
  mimeType: 'image/png' | 'image/jpeg';
  scale: [number, number];
  offset: [number, number];
}

/** The smallest side a reduced texture is given. */
const MIN_SIDE = 8;

/**
 * Textures per tile: a PNG is cut to the part the tile's UVs cover (a pixel of margin for the
 * filtering) and halved in each direction per level above the leaves, box-filtered; UVs that
 * wrap (outside 0..1) keep the whole image, reduced. A JPEG is kept whole as it is: no JPEG
 * decoder is among our dependencies (docs/processing.md, "Meshes").
 */
export class TextureLevels {
  private decoded = new Map<MeshTexture, PNG>();

  tileTexture(texture: MeshTexture, uvs: Float32Array, height: number): TileTexture {
    const identity = { scale: [1, 1] as [number, number], offset: [0, 0] as [number, number] };
    if (texture.mimeType === 'image/jpeg') return { bytes: texture.bytes, mimeType: texture.mimeType, ...identity };
    const image = this.decode(texture);
    let [u0, v0, u1, v1] = [Infinity, Infinity, -Infinity, -Infinity];
    for (let i = 0; i < uvs.length; i += 2) {
      u0 = Math.min(u0, uvs[i]!);
      u1 = Math.max(u1, uvs[i]!);
      v0 = Math.min(v0, uvs[i + 1]!);
      v1 = Math.max(v1, uvs[i + 1]!);
    }
    const wraps = !(u0 >= 0 && v0 >= 0 && u1 <= 1 && v1 <= 1);
    const x0 = wraps ? 0 : Math.max(0, Math.floor(u0 * image.width) - 1);
    const y0 = wraps ? 0 : Math.max(0, Math.floor(v0 * image.height) - 1);
    const x1 = wraps ? image.width : Math.min(image.width, Math.ceil(u1 * image.width) + 1);
    const y1 = wraps ? image.height : Math.min(image.height, Math.ceil(v1 * image.height) + 1);
    const factor = 2 ** height;
    const width = Math.max(1, x1 - x0);
    const rows = Math.max(1, y1 - y0);
    const out = reduced(
      image,
      x0,
      y0,
      width,
      rows,
      Math.max(Math.min(MIN_SIDE, width), Math.ceil(width / factor)),
      Math.max(Math.min(MIN_SIDE, rows), Math.ceil(rows / factor)),
    );
    // Wrapping UVs keep the whole image: the same UVs address it whatever its size.
    const scale: [number, number] = wraps ? [1, 1] : [image.width / width, image.height / rows];
    const offset: [number, number] = wraps ? [0, 0] : [-x0 / width, -y0 / rows];
    return { bytes: PNG.sync.write(out), mimeType: 'image/png', scale, offset };
  }

  private decode(texture: MeshTexture): PNG {
    let image = this.decoded.get(texture);
    if (!image) {
      image = PNG.sync.read(Buffer.from(texture.bytes.buffer, texture.bytes.byteOffset, texture.bytes.byteLength));
      this.decoded.set(texture, image);
    }
    return image;
  }
}

/** The rectangle (x0, y0, width, rows) of `image` box-filtered to outWidth x outRows. */
function reduced(image: PNG, x0: number, y0: number, width: number, rows: number, outWidth: number, outRows: number): PNG {
  const out = new PNG({ width: outWidth, height: outRows });
  const fx = width / outWidth;
  const fy = rows / outRows;
  for (let y = 0; y < outRows; y += 1) {
    const sy0 = y0 + Math.floor(y * fy);
    const sy1 = Math.max(sy0 + 1, y0 + Math.floor((y + 1) * fy));
    for (let x = 0; x < outWidth; x += 1) {
      const sx0 = x0 + Math.floor(x * fx);
      const sx1 = Math.max(sx0 + 1, x0 + Math.floor((x + 1) * fx));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = sy0; sy < sy1; sy += 1) {
        for (let sx = sx0; sx < sx1; sx += 1) {
          const at = (sy * image.width + sx) * 4;
          r += image.data[at]!;
          g += image.data[at + 1]!;
          b += image.data[at + 2]!;
          a += image.data[at + 3]!;
        }
      }
      const n = (sy1 - sy0) * (sx1 - sx0);
      const to = (y * outWidth + x) * 4;
      out.data[to] = r / n;
      out.data[to + 1] = g / n;
      out.data[to + 2] = b / n;
      out.data[to + 3] = a / n;
    }
  }
  return out;
}
