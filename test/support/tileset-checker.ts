import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { validateBytes } from 'gltf-validator';

/**
 * Checks a 3D Tiles 1.1 tileset as far as the specification's rules can be checked without the
 * official validator (not in our registry mirror): the tileset schema's required fields,
 * geometric error non-negative and non-increasing toward the leaves, refine values, every
 * child's box inside its parent's, content URIs relative and resolving to files, every glTF
 * content free of errors under the Khronos glTF Validator, and every content point inside
 * its tile's box (glTF y-up turned to the tileset's z-up).
 */
export interface TilesetReport {
  issues: string[];
  tiles: number;
  points: number;
  gltfWarnings: number;
}

interface TileJson {
  boundingVolume?: { box?: unknown };
  geometricError?: unknown;
  refine?: unknown;
  content?: { uri?: unknown };
  children?: TileJson[];
}

const io = new NodeIO();
const EPSILON = 1e-6;

export async function checkTileset(dir: string): Promise<TilesetReport> {
  const report: TilesetReport = { issues: [], tiles: 0, points: 0, gltfWarnings: 0 };
  const issue = (message: string) => report.issues.push(message);
  const tileset = JSON.parse(await readFile(path.join(dir, 'tileset.json'), 'utf8'));
  if (tileset?.asset?.version !== '1.1') issue('asset.version is not "1.1"');
  if (!isNonNegative(tileset.geometricError)) issue('tileset geometricError is not a non-negative number');
  const root = tileset.root as TileJson | undefined;
  if (!root) {
    issue('tileset has no root tile');
    return report;
  }
  if (root.refine !== 'ADD' && root.refine !== 'REPLACE') issue('root tile has no refine ADD or REPLACE');
  await checkTile(root, 'root', Number(tileset.geometricError), undefined, dir, report);
  return report;
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

function boxOf(tile: TileJson, where: string, report: TilesetReport): number[] | undefined {
  const box = tile.boundingVolume?.box;
  if (!Array.isArray(box) || box.length !== 12 || !box.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    report.issues.push(`${where}: boundingVolume.box is not 12 finite numbers`);
    return undefined;
  }
  return box as number[];
}

/** Whether point p lies in the oriented box (center, three half-axis vectors). */
function insideBox(box: number[], p: [number, number, number], slack: number): boolean {
  const d = [p[0] - box[0]!, p[1] - box[1]!, p[2] - box[2]!];
  for (let axis = 0; axis < 3; axis += 1) {
    const u = box.slice(3 + axis * 3, 6 + axis * 3);
    const length2 = u[0]! ** 2 + u[1]! ** 2 + u[2]! ** 2;
    const projection = d[0]! * u[0]! + d[1]! * u[1]! + d[2]! * u[2]!;
    if (Math.abs(projection) > length2 + slack * Math.sqrt(length2)) return false;
  }
  return true;
}

function corners(box: number[]): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (let k = 0; k < 8; k += 1) {
    const s = [k & 1 ? 1 : -1, k & 2 ? 1 : -1, k & 4 ? 1 : -1];
    out.push(
      [0, 1, 2].map((c) => box[c]! + s[0]! * box[3 + c]! + s[1]! * box[6 + c]! + s[2]! * box[9 + c]!) as [number, number, number],
    );
  }
  return out;
}

async function checkTile(
  tile: TileJson,
  where: string,
  parentError: number,
  parentBox: number[] | undefined,
  dir: string,
  report: TilesetReport,
): Promise<void> {
  report.tiles += 1;
  const issue = (message: string) => report.issues.push(`${where}: ${message}`);
  const box = boxOf(tile, where, report);
  if (!isNonNegative(tile.geometricError)) issue('geometricError is not a non-negative number');
  else if (tile.geometricError > parentError + EPSILON)
    issue(`geometricError ${tile.geometricError} exceeds its parent's ${parentError}`);
  if (tile.refine !== undefined && tile.refine !== 'ADD' && tile.refine !== 'REPLACE') issue('refine is neither ADD nor REPLACE');
  if (box && parentBox) {
    const scale = Math.hypot(...parentBox.slice(3));
    if (!corners(box).every((corner) => insideBox(parentBox, corner, scale * EPSILON)))
      issue("box is not inside its parent's box");
  }
  if (tile.content) await checkContent(tile.content.uri, box, where, dir, report);
  if (tile.children !== undefined && !Array.isArray(tile.children)) issue('children is not an array');
  for (const [i, child] of (tile.children ?? []).entries()) {
    await checkTile(child, `${where}/${i}`, Number(tile.geometricError), box, dir, report);
  }
}

async function checkContent(uri: unknown, box: number[] | undefined, where: string, dir: string, report: TilesetReport) {
  const issue = (message: string) => report.issues.push(`${where}: ${message}`);
  if (typeof uri !== 'string' || uri === '') return issue('content.uri is not a string');
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri) || uri.startsWith('/')) return issue(`content.uri ${uri} is not relative`);
  const file = path.resolve(dir, decodeURI(uri));
  if (!file.startsWith(path.resolve(dir) + path.sep)) return issue(`content.uri ${uri} leaves the tileset's folder`);
  if (
    !(await stat(file).then(
      (s) => s.isFile(),
      () => false,
    ))
  )
    return issue(`content.uri ${uri} does not resolve to a file`);
  const bytes = new Uint8Array(await readFile(file));
  const validation = await validateBytes(bytes, { uri, maxIssues: 20 });
  report.gltfWarnings += validation.issues.numWarnings;
  if (validation.issues.numErrors > 0) {
    const codes = validation.issues.messages.filter((m) => m.severity === 0).map((m) => `${m.code} ${m.message}`);
    return issue(`glTF Validator found ${validation.issues.numErrors} errors in ${uri}: ${codes.join('; ')}`);
  }
  const document = await io.readBinary(bytes);
  for (const node of document.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const [tx, ty, tz] = node.getWorldTranslation();
    for (const primitive of mesh.listPrimitives()) {
      const position = primitive.getAttribute('POSITION');
      if (!position) continue;
      const element: number[] = [];
      let outside = 0;
      for (let i = 0; i < position.getCount(); i += 1) {
        position.getElement(i, element);
        // glTF (x, y, z) y-up is (x, -z, y) in the tileset's z-up frame.
        const p: [number, number, number] = [element[0]! + tx, -(element[2]! + tz), element[1]! + ty];
        if (box && !insideBox(box, p, Math.hypot(...box.slice(3)) * EPSILON)) outside += 1;
      }
      report.points += position.getCount();
      if (outside > 0) issue(`${outside} points of ${uri} lie outside the tile's box`);
    }
  }
}
