import { parseWkt, type WktNode, wktChildren, wktEpsgCode, wktName, writeWkt } from './wkt.js';

/**
 * The coordinate reference system a point-cloud file declares, as read from it: an EPSG code,
 * a definition (WKT or a PROJ string), or both; `problem` when the file declares one that
 * cannot be understood (a user-defined GeoTIFF system, malformed WKT). Turned into a frame on
 * the globe by georeference.ts.
 */
export interface DeclaredCrs {
  /** Where it was read: LAS/LAZ's OGC WKT record, LAS/LAZ's GeoTIFF keys, E57's coordinateMetadata, the .prj beside a mesh. */
  source: 'lasWkt' | 'lasGeoTiff' | 'e57' | 'prj';
  /** The horizontal system's EPSG code. */
  epsg?: number;
  /** The horizontal system as WKT or a PROJ string, when the file gives one. */
  definition?: string;
  /** The vertical system, recorded only ("EPSG:5773" or its WKT name): heights are not converted. */
  vertical?: string;
  problem?: string;
}

const HORIZONTAL = ['PROJCS', 'GEOGCS', 'GEOCCS', 'PROJCRS', 'GEOGCRS', 'GEODCRS', 'GEOGRAPHICCRS', 'PROJECTEDCRS'];
const VERTICAL = ['VERT_CS', 'VERTCRS', 'VERTICALCRS'];
const COMPOUND = ['COMPD_CS', 'COMPOUNDCRS'];
/** WKT 2 wraps a system with its transformation to WGS 84 in BOUNDCRS[SOURCECRS[...], ...]. */
const BOUND = 'BOUNDCRS';

/** A WKT coordinate system: its horizontal part (written back alone, for proj4) and its vertical part. */
export function crsOfWkt(text: string, source: DeclaredCrs['source']): DeclaredCrs {
  let root: WktNode;
  try {
    root = parseWkt(text.replace(/\0+$/, '').trim());
  } catch (error) {
    return { source, problem: (error as Error).message };
  }
  if (root.keyword === BOUND)
    root = wktChildren(root, 'SOURCECRS')[0]?.args.find((a): a is WktNode => typeof a !== 'string') ?? root;
  let horizontal: WktNode | undefined;
  let vertical: WktNode | undefined;
  if (COMPOUND.includes(root.keyword)) {
    horizontal = wktChildren(root, ...HORIZONTAL)[0];
    vertical = wktChildren(root, ...VERTICAL)[0];
  } else if (HORIZONTAL.includes(root.keyword)) {
    horizontal = root;
  } else if (VERTICAL.includes(root.keyword)) {
    vertical = root;
  }
  const declared: DeclaredCrs = { source };
  if (vertical) declared.vertical = verticalLabel(vertical);
  if (!horizontal) return { ...declared, problem: `the WKT declares no horizontal coordinate system (${root.keyword})` };
  const epsg = wktEpsgCode(horizontal);
  if (epsg !== undefined) declared.epsg = epsg;
  declared.definition = writeWkt(horizontal);
  return declared;
}

function verticalLabel(node: WktNode): string {
  const code = wktEpsgCode(node);
  return code === undefined ? (wktName(node) ?? node.keyword) : `EPSG:${code}`;
}

const EPSG_TEXT = [
  /^EPSG:{1,2}(\d+)(?:\s*\+\s*(\d+))?$/i,
  /^urn:ogc:def:crs:EPSG:[^:]*:(\d+)$/i,
  /^https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/[^/]*\/(\d+)$/i,
];

/**
 * A coordinate system written as text (E57's coordinateMetadata, which the standard leaves
 * free): "EPSG:32632", "EPSG:25832+5783" (horizontal + vertical), an OGC URN or URI, WKT, or a
 * PROJ string. Empty text declares nothing.
 */
export function crsOfText(text: string, source: DeclaredCrs['source']): DeclaredCrs | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  for (const pattern of EPSG_TEXT) {
    const match = pattern.exec(trimmed);
    if (!match) continue;
    const declared: DeclaredCrs = { source, epsg: Number(match[1]) };
    if (match[2]) declared.vertical = `EPSG:${match[2]}`;
    return declared;
  }
  if (/^[A-Z_]+\s*[[(]/i.test(trimmed)) return crsOfWkt(trimmed, source);
  if (/^\+proj=/.test(trimmed)) return { source, definition: trimmed };
  return { source, problem: `"${trimmed.slice(0, 80)}" names no coordinate system we read (EPSG code, WKT or PROJ string)` };
}

/** GeoTIFF keys (the GeoKeyDirectoryTag, LAS record 34735) that say which system is used. */
const GT_MODEL_TYPE = 1024;
const GEOGRAPHIC_TYPE = 2048;
const PROJECTED_CS_TYPE = 3072;
const VERTICAL_CS_TYPE = 4096;
const USER_DEFINED = 32767;
const MODEL_GEOCENTRIC = 3;

/**
 * The GeoKeyDirectoryTag's shorts: a header (version, revision, minor revision, key count),
 * then four shorts a key (id, where its value is, count, value or index). The codes this reads
 * sit in the entry itself; a user-defined system (code 32767, given by projection parameters
 * in further keys) is reported as a problem.
 */
export function crsOfGeoKeys(keys: Uint16Array): DeclaredCrs {
  const source = 'lasGeoTiff' as const;
  if (keys.length < 4) return { source, problem: 'the GeoTIFF key directory is cut short' };
  const count = keys[3]!;
  const values = new Map<number, number>();
  for (let i = 0; i < count && 4 + i * 4 + 3 < keys.length; i += 1) {
    const at = 4 + i * 4;
    // Location 0: the value is the entry's last short.
    if (keys[at + 1] === 0) values.set(keys[at]!, keys[at + 3]!);
  }
  const declared: DeclaredCrs = { source };
  const vertical = values.get(VERTICAL_CS_TYPE);
  if (vertical !== undefined && vertical > 0 && vertical !== USER_DEFINED) declared.vertical = `EPSG:${vertical}`;
  if (values.get(GT_MODEL_TYPE) === MODEL_GEOCENTRIC)
    return { ...declared, problem: 'the GeoTIFF keys declare a geocentric model' };
  const code = values.get(PROJECTED_CS_TYPE) ?? values.get(GEOGRAPHIC_TYPE);
  if (code === undefined) return { ...declared, problem: 'the GeoTIFF keys name no projected or geographic coordinate system' };
  if (code === USER_DEFINED || code === 0) {
    return { ...declared, problem: 'the GeoTIFF keys define their own coordinate system instead of naming an EPSG code' };
  }
  return { ...declared, epsg: code };
}
