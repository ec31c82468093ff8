import proj4 from 'proj4';
import type { DeclaredCrs } from './declared-crs.js';
import { epsgDefinition } from './epsg-definitions.js';
import {
  eastNorthUpToFixedFrame,
  ecefToEastNorthUp,
  type Geodetic,
  geodeticToEcef,
  multiplyMatrices,
  type Vec3,
} from './wgs84.js';

/**
 * Where a point cloud sits: on the globe (its tileset's root transform takes local metres
 * around `origin` to ECEF) or in its own local frame, with the reason. Kept on the derivative
 * (tileset.json asset.extras and the processing's record) for the twin and the viewer.
 */
export type Georeference = GlobeFrame | LocalFrame;

export type LocalFrameReason =
  /** The file declares no coordinate system (PLY, XYZ, PTS, or LAS/E57 without one). */
  | 'noCoordinateSystem'
  /** It declares one we cannot turn into a proj4 definition. */
  | 'unknownCoordinateSystem'
  /** proj4 knows it, but we do not place it: geographic (degrees) or geocentric coordinates. */
  | 'unsupportedCoordinateSystem'
  /** The cloud's centre lies where the system gives no position on the globe. */
  | 'outsideCoordinateSystem';

export interface LocalFrame {
  georeferenced: false;
  reason: LocalFrameReason;
  /** What was declared ("EPSG:123456", "WKT", "PROJ"), when something was. */
  crs?: string;
  verticalCrs?: string;
  detail?: string;
}

export interface GlobeFrame {
  georeferenced: true;
  /** "EPSG:<code>", or "WKT" / "PROJ" for a definition without a code. */
  crs: string;
  /** The proj4 definition used (a PROJ string or the file's WKT). */
  definition: string;
  /** Recorded, not applied: heights are taken as heights above the WGS 84 ellipsoid. */
  verticalCrs?: string;
  /** The point of the cloud (in the file's own coordinates) that the tile contents are relative to. */
  origin: Vec3;
  longitude: number;
  latitude: number;
  height: number;
  /** Meridian convergence at the origin: degrees from true north to grid north, clockwise. */
  gridConvergence: number;
  /** Metres per grid unit along grid north at the origin's height: 1 / scale factor × (R + h) / R, times the grid's unit. */
  gridScale: number;
  /** Column-major 4x4: local (file units, relative to `origin`) to ECEF metres. */
  transform: number[];
}

/** Half the step, in grid units, of the central differences that measure the grid's rotation and scale. */
const STEP = 1;

interface Resolved {
  crs: string;
  definition: string;
}

/** The proj4 definition for what the file declares, preferring our definition of its EPSG code (with its datum shift). */
function resolve(declared: DeclaredCrs): Resolved | LocalFrame {
  const label = declared.epsg !== undefined ? `EPSG:${declared.epsg}` : declared.definition?.startsWith('+') ? 'PROJ' : 'WKT';
  const local = (reason: LocalFrameReason, detail: string): LocalFrame => ({
    georeferenced: false,
    reason,
    ...(declared.epsg !== undefined || declared.definition ? { crs: label } : {}),
    ...(declared.vertical ? { verticalCrs: declared.vertical } : {}),
    detail,
  });
  if (declared.problem) return local('unknownCoordinateSystem', declared.problem);
  const known = declared.epsg === undefined ? undefined : epsgDefinition(declared.epsg);
  const definition = known ?? declared.definition;
  if (!definition) return local('unknownCoordinateSystem', `${label} is not among the coordinate systems we know`);
  return { crs: label, definition };
}

/**
 * The frame of a cloud whose local origin is `origin` (file coordinates, usually the centre of
 * its bounds). A projected system is placed by the east-north-up frame at the origin, turned
 * and scaled as the grid is there (meridian convergence and scale factor measured through
 * proj4), so a local vector (dx, dy, dz) lands where proj4 would put the point, up to the
 * earth's curvature across the cloud (about d^2 / 2R: 1 cm at 350 m from the origin).
 */
export function georeferenceOf(declared: DeclaredCrs | undefined, origin: Vec3): Georeference {
  if (!declared) return { georeferenced: false, reason: 'noCoordinateSystem' };
  const resolved = resolve(declared);
  if ('georeferenced' in resolved) return resolved;
  const local = (reason: LocalFrameReason, detail: string): LocalFrame => ({
    georeferenced: false,
    reason,
    crs: resolved.crs,
    ...(declared.vertical ? { verticalCrs: declared.vertical } : {}),
    detail,
  });
  let converter: proj4.Converter;
  let projection: { projName?: string; to_meter?: number };
  try {
    projection = new proj4.Proj(resolved.definition) as unknown as { projName?: string; to_meter?: number };
    converter = proj4(resolved.definition, 'WGS84');
  } catch (error) {
    const reason = error instanceof Error && error.message ? `: ${error.message}` : '';
    return local('unknownCoordinateSystem', `proj4 cannot read the definition of ${resolved.crs}${reason}`);
  }
  if (!projection.projName) return local('unknownCoordinateSystem', `proj4 cannot read the definition of ${resolved.crs}`);
  if (projection.projName === 'longlat' || projection.projName === 'geocent') {
    const kind = projection.projName === 'longlat' ? 'geographic (longitude and latitude in degrees)' : 'geocentric';
    return local('unsupportedCoordinateSystem', `${resolved.crs} is ${kind}; only projected coordinates are placed on the globe`);
  }
  // proj4 scales x and y by the unit but leaves z: heights go to proj4 in metres.
  const unit = projection.to_meter ?? 1;
  const toGeodetic = (x: number, y: number): Geodetic | undefined => {
    try {
      const [longitude, latitude, height] = converter.forward([x, y, origin[2] * unit]) as number[];
      return [longitude, latitude, height].every((v) => Number.isFinite(v))
        ? { longitude: longitude!, latitude: latitude!, height: height! }
        : undefined;
    } catch {
      return undefined;
    }
  };
  const [x0, y0] = origin;
  const place = toGeodetic(x0, y0);
  const around = [toGeodetic(x0 + STEP, y0), toGeodetic(x0 - STEP, y0), toGeodetic(x0, y0 + STEP), toGeodetic(x0, y0 - STEP)];
  if (!place || Math.abs(place.latitude) > 89.9 || around.some((p) => !p)) {
    return local(
      'outsideCoordinateSystem',
      `the cloud's centre (${origin.join(', ')}) has no position on the globe in ${resolved.crs}`,
    );
  }
  const [east1, east0, north1, north0] = around.map((p) => ecefToEastNorthUp(geodeticToEcef(p!), place));
  const gridEast = [0, 1].map((i) => (east1![i]! - east0![i]!) / (2 * STEP));
  const gridNorth = [0, 1].map((i) => (north1![i]! - north0![i]!) / (2 * STEP));
  // Columns: where the grid's x, y and z axes point, in east-north-up metres.
  const grid = [gridEast[0]!, gridEast[1]!, 0, 0, gridNorth[0]!, gridNorth[1]!, 0, 0, 0, 0, unit, 0, 0, 0, 0, 1];
  const transform = multiplyMatrices(eastNorthUpToFixedFrame(place), grid);
  return {
    georeferenced: true,
    crs: resolved.crs,
    definition: resolved.definition,
    ...(declared.vertical ? { verticalCrs: declared.vertical } : {}),
    origin,
    longitude: place.longitude,
    latitude: place.latitude,
    height: place.height,
    gridConvergence: (Math.atan2(gridNorth[0]!, gridNorth[1]!) * 180) / Math.PI,
    gridScale: Math.hypot(gridNorth[0]!, gridNorth[1]!),
    transform,
  };
}
