import proj4 from 'proj4';

/**
 * Samples and checks for georeferenced point clouds: coordinate systems as files declare them,
 * and where a tileset's root transform really puts the cloud, worked out with proj4 alone (its
 * geocentric conversion), not with the code under test.
 */
export const UTM_32N_WKT =
  'PROJCS["WGS 84 / UTM zone 32N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",9],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","32632"]]';

/** WGS 84 / UTM 32N with EGM96 heights, as LAS 1.4 writers put a compound system. */
export const UTM_32N_EGM96_WKT = `COMPD_CS["WGS 84 / UTM zone 32N + EGM96 height",${UTM_32N_WKT},VERT_CS["EGM96 height",VERT_DATUM["EGM96 geoid",2005,AUTHORITY["EPSG","5171"]],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Up",UP],AUTHORITY["EPSG","5773"]]]`;

/** Places in UTM zones 32N and 33N (near Munich and near Vienna). */
export const MUNICH_UTM_32N = { x: 691_000, y: 5_335_000, z: 520 };
export const VIENNA_UTM_33N = { x: 601_000, y: 5_340_000, z: 180 };

const fromEcef = proj4('+proj=geocent +datum=WGS84 +units=m +no_defs', 'WGS84');
const toEcef = proj4('WGS84', '+proj=geocent +datum=WGS84 +units=m +no_defs');

export interface Place {
  longitude: number;
  latitude: number;
  height: number;
}

/** Where a column-major 4x4 transform puts the local origin, on the globe. */
export function placeOfTransform(transform: number[]): Place {
  const [longitude, latitude, height] = fromEcef.forward([transform[12]!, transform[13]!, transform[14]!]) as number[];
  return { longitude: longitude!, latitude: latitude!, height: height! };
}

/** Where a transform puts a local point, in ECEF. */
export function ecefOfLocal(transform: number[], [x, y, z]: [number, number, number]): [number, number, number] {
  return [0, 1, 2].map((r) => transform[r]! * x + transform[4 + r]! * y + transform[8 + r]! * z + transform[12 + r]!) as [
    number,
    number,
    number,
  ];
}

/** Where proj4 puts a point of a UTM zone (WGS 84), on the globe and in ECEF. */
export function utmPlace(zone: number, [x, y, z]: [number, number, number]): { place: Place; ecef: [number, number, number] } {
  const [longitude, latitude] = proj4(`+proj=utm +zone=${zone} +datum=WGS84 +units=m +no_defs`, 'WGS84').forward([
    x,
    y,
  ]) as number[];
  const place = { longitude: longitude!, latitude: latitude!, height: z };
  return { place, ecef: toEcef.forward([place.longitude, place.latitude, place.height]) as [number, number, number] };
}
