import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** One point of a tile read back: its tileset position (z-up) and the attributes the tile gave it. */
export interface TilePoint {
  x: number;
  y: number;
  z: number;
  intensity?: number;
  classification?: number;
  /** `_DISTANCE`, a comparison's tiles' float (docs/comparisons-viewer.md). */
  distance?: number;
}

export interface TileAttributes {
  /** The attribute names of every tile's primitive, the same for all of them (else an error). */
  names: string[];
  /** The accessor of each custom attribute, as the first tile declares it. */
  accessors: Record<string, { componentType: number; type: string; normalized?: boolean }>;
  points: TilePoint[];
}

const FLOAT = 5126;
const UNSIGNED_BYTE = 5121;
const UNSIGNED_SHORT = 5123;

/**
 * Every point of a tileset's tiles with `_INTENSITY`, `_CLASSIFICATION` and `_DISTANCE`, decoded from the
 * GLB bytes by the accessors' declared layout (glTF y-up turned back to the tileset's z-up).
 */
export async function readTileAttributes(dir: string): Promise<TileAttributes> {
  const tileset = JSON.parse(await readFile(path.join(dir, 'tileset.json'), 'utf8'));
  const uris: string[] = [];
  const walk = (tile: { content?: { uri: string }; children?: unknown[] }) => {
    if (tile.content) uris.push(tile.content.uri);
    for (const child of tile.children ?? []) walk(child as typeof tile);
  };
  walk(tileset.root);
  let names: string[] | undefined;
  const accessors: TileAttributes['accessors'] = {};
  const points: TilePoint[] = [];
  for (const uri of uris) {
    const glb = await readFile(path.join(dir, uri));
    const jsonLength = glb.readUInt32LE(12);
    const json = JSON.parse(glb.toString('utf8', 20, 20 + jsonLength));
    const bin = glb.subarray(20 + jsonLength + 8);
    const primitive = json.meshes[0].primitives[0];
    const tileNames = Object.keys(primitive.attributes).sort();
    if (names && names.join() !== tileNames.join())
      throw new Error(`${uri} has attributes ${tileNames} where others have ${names}`);
    names = tileNames;
    const [tx, ty, tz] = json.nodes[0].translation as number[];
    const read = (name: string, i: number): number | undefined => {
      const index = primitive.attributes[name];
      if (index === undefined) return undefined;
      const accessor = json.accessors[index];
      const view = json.bufferViews[accessor.bufferView];
      accessors[name] ??= { componentType: accessor.componentType, type: accessor.type, normalized: accessor.normalized };
      const at = (view.byteOffset ?? 0) + (accessor.byteOffset ?? 0) + i * view.byteStride;
      if (accessor.componentType === FLOAT) return bin.readFloatLE(at);
      if (accessor.componentType === UNSIGNED_BYTE) return bin.readUInt8(at);
      if (accessor.componentType === UNSIGNED_SHORT) return bin.readUInt16LE(at) / (accessor.normalized ? 0xffff : 1);
      throw new Error(`${name}: component type ${accessor.componentType} not read here`);
    };
    const position = json.accessors[primitive.attributes.POSITION];
    const view = json.bufferViews[position.bufferView];
    for (let i = 0; i < position.count; i += 1) {
      const at = (view.byteOffset ?? 0) + i * view.byteStride;
      const [gx, gy, gz] = [bin.readFloatLE(at) + tx!, bin.readFloatLE(at + 4) + ty!, bin.readFloatLE(at + 8) + tz!];
      const point: TilePoint = { x: gx, y: -gz, z: gy };
      const intensity = read('_INTENSITY', i);
      const classification = read('_CLASSIFICATION', i);
      if (intensity !== undefined) point.intensity = intensity;
      if (classification !== undefined) point.classification = classification;
      const distance = read('_DISTANCE', i);
      if (distance !== undefined) point.distance = distance;
      points.push(point);
    }
  }
  return { names: names ?? [], accessors, points };
}
