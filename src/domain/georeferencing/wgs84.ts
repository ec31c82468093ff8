/**
 * The WGS84 ellipsoid: geodetic coordinates (degrees, metres above the ellipsoid) to
 * earth-centred earth-fixed (ECEF) metres and back, and the east-north-up frame that 3D Tiles
 * and CesiumJS use to place a local model on the globe.
 */
export const WGS84_A = 6_378_137;
export const WGS84_F = 1 / 298.257223563;
const E2 = WGS84_F * (2 - WGS84_F);
const B = WGS84_A * (1 - WGS84_F);
const EP2 = (WGS84_A * WGS84_A - B * B) / (B * B);

export type Vec3 = [number, number, number];

export interface Geodetic {
  longitude: number;
  latitude: number;
  height: number;
}

const RAD = Math.PI / 180;

export function geodeticToEcef({ longitude, latitude, height }: Geodetic): Vec3 {
  const lambda = longitude * RAD;
  const phi = latitude * RAD;
  const sinPhi = Math.sin(phi);
  const n = WGS84_A / Math.sqrt(1 - E2 * sinPhi * sinPhi);
  return [
    (n + height) * Math.cos(phi) * Math.cos(lambda),
    (n + height) * Math.cos(phi) * Math.sin(lambda),
    (n * (1 - E2) + height) * sinPhi,
  ];
}

/** ECEF to geodetic: Bowring's start, then Newton steps on the latitude (sub-millimetre anywhere near the surface). */
export function ecefToGeodetic([x, y, z]: Vec3): Geodetic {
  const p = Math.hypot(x, y);
  const longitude = Math.atan2(y, x) / RAD;
  if (p < 1e-9) {
    return { longitude: 0, latitude: z >= 0 ? 90 : -90, height: Math.abs(z) - B };
  }
  const theta = Math.atan2(z * WGS84_A, p * B);
  let phi = Math.atan2(z + EP2 * B * Math.sin(theta) ** 3, p - E2 * WGS84_A * Math.cos(theta) ** 3);
  let height = 0;
  for (let i = 0; i < 3; i += 1) {
    const sinPhi = Math.sin(phi);
    const n = WGS84_A / Math.sqrt(1 - E2 * sinPhi * sinPhi);
    height = p / Math.cos(phi) - n;
    phi = Math.atan2(z, p * (1 - (E2 * n) / (n + height)));
  }
  return { longitude, latitude: phi / RAD, height };
}

/** The unit east, north and up vectors at a place, in ECEF. */
export function eastNorthUp({ longitude, latitude }: Pick<Geodetic, 'longitude' | 'latitude'>): {
  east: Vec3;
  north: Vec3;
  up: Vec3;
} {
  const lambda = longitude * RAD;
  const phi = latitude * RAD;
  const [sl, cl, sp, cp] = [Math.sin(lambda), Math.cos(lambda), Math.sin(phi), Math.cos(phi)];
  return { east: [-sl, cl, 0], north: [-sp * cl, -sp * sl, cp], up: [cp * cl, cp * sl, sp] };
}

/**
 * The 4x4 matrix, column-major as 3D Tiles stores `transform`, taking east-north-up metres at
 * `place` to ECEF: columns east, north, up and the place itself (CesiumJS's
 * Transforms.eastNorthUpToFixedFrame).
 */
export function eastNorthUpToFixedFrame(place: Geodetic): number[] {
  const { east, north, up } = eastNorthUp(place);
  const origin = geodeticToEcef(place);
  return [...east, 0, ...north, 0, ...up, 0, ...origin, 1];
}

/** Where `point` (ECEF) lies in the east-north-up frame at `place`, in metres. */
export function ecefToEastNorthUp(point: Vec3, place: Geodetic): Vec3 {
  const origin = geodeticToEcef(place);
  const d: Vec3 = [point[0] - origin[0], point[1] - origin[1], point[2] - origin[2]];
  const { east, north, up } = eastNorthUp(place);
  const dot = (u: Vec3) => u[0] * d[0] + u[1] * d[1] + u[2] * d[2];
  return [dot(east), dot(north), dot(up)];
}

/** Column-major 4x4 matrices multiplied, a · b. */
export function multiplyMatrices(a: readonly number[], b: readonly number[]): number[] {
  const out = new Array<number>(16).fill(0);
  for (let column = 0; column < 4; column += 1) {
    for (let row = 0; row < 4; row += 1) {
      let sum = 0;
      for (let k = 0; k < 4; k += 1) sum += a[k * 4 + row]! * b[column * 4 + k]!;
      out[column * 4 + row] = sum;
    }
  }
  return out;
}
