import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { type GlobeFrame, georeferenceOf } from './georeference.js';
import { eastNorthUpToFixedFrame, multiplyMatrices, type Vec3 } from './wgs84.js';

const UTM_32N = '+proj=utm +zone=32 +datum=WGS84 +units=m +no_defs';
const toEcef = proj4('WGS84', '+proj=geocent +datum=WGS84 +units=m +no_defs');
const utmToWgs84 = proj4(UTM_32N, 'WGS84');
/** WGS 84 / UTM 32N without its AUTHORITY: only the WKT's parameters say what it is. */
const UTM_32N_WKT_WITHOUT_CODE =
  'PROJCS["unnamed",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",9],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1]]';

/** Where the frame puts a local offset, in ECEF. */
function placed(frame: GlobeFrame, local: Vec3): Vec3 {
  return multiplyMatrices(frame.transform, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, ...local, 1]).slice(12, 15) as Vec3;
}

/** Where proj4 alone puts a point of the grid, in ECEF. */
function proj4Ecef(point: Vec3): Vec3 {
  const [lon, lat] = utmToWgs84.forward([point[0], point[1]]) as number[];
  return toEcef.forward([lon!, lat!, point[2]]) as Vec3;
}

const ORIGIN: Vec3 = [691_000.5, 5_335_000.25, 520];

describe('georeferencing a point cloud', () => {
  it('stays local without a declared system', () => {
    expect(georeferenceOf(undefined, ORIGIN)).toEqual({ georeferenced: false, reason: 'noCoordinateSystem' });
  });

  it('places a UTM cloud: the origin where proj4 puts it, points 360 m away within a centimetre of curvature (grid convergence and scale corrected)', () => {
    const frame = georeferenceOf({ source: 'lasGeoTiff', epsg: 32632, vertical: 'EPSG:5773' }, ORIGIN);
    if (!frame.georeferenced) throw new Error(frame.detail);
    expect(frame).toMatchObject({ crs: 'EPSG:32632', definition: UTM_32N, verticalCrs: 'EPSG:5773', origin: ORIGIN });
    const [lon, lat] = utmToWgs84.forward([ORIGIN[0], ORIGIN[1]]) as number[];
    expect(frame.longitude).toBeCloseTo(lon!, 10);
    expect(frame.latitude).toBeCloseTo(lat!, 10);
    expect(frame.height).toBeCloseTo(520, 6);
    placed(frame, [0, 0, 0]).forEach((v, i) => {
      expect(v).toBeCloseTo(proj4Ecef(ORIGIN)[i]!, 6);
    });
    // East of the central meridian (9E) at 48N: grid north is about (lon - 9) sin(lat) east of true north.
    expect(frame.gridConvergence).toBeCloseTo((lon! - 9) * Math.sin((lat! * Math.PI) / 180), 1);
    expect(frame.gridScale).toBeGreaterThan(1 / 0.9996 - 0.001);
    for (const offset of [
      [300, -200, 15],
      [-250, 250, -40],
    ] as Vec3[]) {
      const expected = proj4Ecef([ORIGIN[0] + offset[0], ORIGIN[1] + offset[1], ORIGIN[2] + offset[2]]);
      const error = Math.hypot(...placed(frame, offset).map((v, i) => v - expected[i]!));
      // What a rigid frame cannot follow: the earth's curvature, d^2 / 2R (1 cm at 360 m).
      const distance = Math.hypot(offset[0], offset[1]);
      expect(error).toBeLessThan((1.1 * distance ** 2) / (2 * 6_371_000) + 0.001);
      // Without the grid's rotation and scale it would be metres off.
      const plain = { ...frame, transform: eastNorthUpToFixedFrame(frame) };
      expect(Math.hypot(...placed(plain, offset).map((v, i) => v - expected[i]!))).toBeGreaterThan(5);
    }
  });

  it('places a cloud by its WKT alone the same way', () => {
    const byCode = georeferenceOf({ source: 'lasWkt', epsg: 32632 }, ORIGIN) as GlobeFrame;
    const byWkt = georeferenceOf({ source: 'lasWkt', definition: UTM_32N_WKT_WITHOUT_CODE }, ORIGIN);
    if (!byWkt.georeferenced) throw new Error(byWkt.detail);
    expect(byWkt.crs).toBe('WKT');
    byWkt.transform.forEach((v, i) => {
      expect(v).toBeCloseTo(byCode.transform[i]!, 6);
    });
  });

  it('scales a grid in US survey feet to metres, heights too', () => {
    const feet =
      '+proj=lcc +lat_0=40.1666666666667 +lon_0=-74 +lat_1=41.0333333333333 +lat_2=40.6666666666667 +x_0=300000 +y_0=0 +datum=NAD83 +units=us-ft +no_defs';
    const frame = georeferenceOf({ source: 'e57', definition: feet }, [990_000, 210_000, 30]);
    if (!frame.georeferenced) throw new Error(frame.detail);
    expect(frame.crs).toBe('PROJ');
    expect(frame.gridScale).toBeCloseTo(1200 / 3937, 3);
    expect(Math.hypot(...frame.transform.slice(8, 11))).toBeCloseTo(1200 / 3937, 9);
    expect(frame.height).toBeCloseTo(30 * (1200 / 3937), 6);
    expect(frame.longitude).toBeCloseTo(-73.98, 1);
    expect(frame.latitude).toBeCloseTo(40.75, 1);
  });

  it('stays local, saying why, for an unknown code, a problem, geographic coordinates and a place off the globe', () => {
    expect(georeferenceOf({ source: 'lasGeoTiff', epsg: 999_999 }, ORIGIN)).toEqual({
      georeferenced: false,
      reason: 'unknownCoordinateSystem',
      crs: 'EPSG:999999',
      detail: 'EPSG:999999 is not among the coordinate systems we know',
    });
    expect(georeferenceOf({ source: 'lasGeoTiff', problem: 'the GeoTIFF keys define their own' }, ORIGIN)).toMatchObject({
      reason: 'unknownCoordinateSystem',
      detail: 'the GeoTIFF keys define their own',
    });
    expect(
      georeferenceOf({ source: 'lasWkt', definition: 'PROJCS["x",PROJECTION["No_Such_Projection"]]' }, ORIGIN),
    ).toMatchObject({
      georeferenced: false,
      reason: 'unknownCoordinateSystem',
      crs: 'WKT',
    });
    expect(georeferenceOf({ source: 'lasGeoTiff', epsg: 4326 }, [9.1, 48.2, 300])).toMatchObject({
      georeferenced: false,
      reason: 'unsupportedCoordinateSystem',
      crs: 'EPSG:4326',
    });
    expect(georeferenceOf({ source: 'e57', epsg: 3857 }, [0, 1e9, 0])).toMatchObject({
      georeferenced: false,
      reason: 'outsideCoordinateSystem',
    });
  });
});
