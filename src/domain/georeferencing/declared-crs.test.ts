import { describe, expect, it } from 'vitest';
import { crsOfGeoKeys, crsOfText, crsOfWkt } from './declared-crs.js';
import { epsgDefinition } from './epsg-definitions.js';
import { parseWkt, writeWkt } from './wkt.js';

const UTM_32N_WKT =
  'PROJCS["WGS 84 / UTM zone 32N",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AUTHORITY["EPSG","4326"]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",9],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1,AUTHORITY["EPSG","9001"]],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","32632"]]';

const EGM96 =
  'VERT_CS["EGM96 height",VERT_DATUM["EGM96 geoid",2005,AUTHORITY["EPSG","5171"]],UNIT["metre",1],AUTHORITY["EPSG","5773"]]';

/** A GeoKeyDirectoryTag: header then (id, location 0, count 1, value) per key. */
function geoKeys(entries: [number, number][]): Uint16Array {
  return Uint16Array.from([1, 1, 0, entries.length, ...entries.flatMap(([id, value]) => [id, 0, 1, value])]);
}

describe('declared coordinate systems', () => {
  it('reads WKT 1 back exactly, with its own EPSG code (not a nested one)', () => {
    expect(writeWkt(parseWkt(UTM_32N_WKT))).toBe(UTM_32N_WKT);
    expect(crsOfWkt(`${UTM_32N_WKT}\0`, 'lasWkt')).toEqual({ source: 'lasWkt', epsg: 32632, definition: UTM_32N_WKT });
  });

  it('splits a compound system into its horizontal part and the vertical one it records', () => {
    const compound = `COMPD_CS["WGS 84 / UTM zone 32N + EGM96 height",${UTM_32N_WKT},${EGM96}]`;
    expect(crsOfWkt(compound, 'lasWkt')).toEqual({
      source: 'lasWkt',
      epsg: 32632,
      definition: UTM_32N_WKT,
      vertical: 'EPSG:5773',
    });
  });

  it('reads WKT 2 identifiers and takes the source of a bound system', () => {
    const wkt2 =
      'BOUNDCRS[SOURCECRS[PROJCRS["ETRS89 / UTM zone 32N",BASEGEOGCRS["ETRS89",DATUM["European Terrestrial Reference System 1989",ELLIPSOID["GRS 1980",6378137,298.257222101]]],CONVERSION["UTM zone 32N",METHOD["Transverse Mercator"]],ID["EPSG",25832]]],TARGETCRS[GEOGCRS["WGS 84"]],ABRIDGEDTRANSFORMATION["x",METHOD["Geocentric translations"]]]';
    expect(crsOfWkt(wkt2, 'e57')).toMatchObject({ source: 'e57', epsg: 25832 });
  });

  it('reports malformed WKT as a problem, never throwing', () => {
    expect(crsOfWkt('PROJCS["cut short",GEOGCS[', 'lasWkt').problem).toMatch(/malformed|cut short/);
    expect(crsOfWkt('PROJCS["a"] trailing', 'lasWkt').problem).toMatch(/after its end/);
    expect(crsOfWkt(EGM96, 'lasWkt')).toMatchObject({ vertical: 'EPSG:5773', problem: expect.stringMatching(/no horizontal/) });
  });

  it('reads E57 coordinateMetadata as an EPSG code, URN, WKT or PROJ string', () => {
    expect(crsOfText('  ', 'e57')).toBeUndefined();
    expect(crsOfText('EPSG:32633', 'e57')).toEqual({ source: 'e57', epsg: 32633 });
    expect(crsOfText('EPSG:25832+5783', 'e57')).toEqual({ source: 'e57', epsg: 25832, vertical: 'EPSG:5783' });
    expect(crsOfText('urn:ogc:def:crs:EPSG::2056', 'e57')).toEqual({ source: 'e57', epsg: 2056 });
    expect(crsOfText(UTM_32N_WKT, 'e57')).toMatchObject({ epsg: 32632 });
    expect(crsOfText('+proj=utm +zone=33 +datum=WGS84', 'e57')).toEqual({
      source: 'e57',
      definition: '+proj=utm +zone=33 +datum=WGS84',
    });
    expect(crsOfText('site grid of plant 4', 'e57')?.problem).toMatch(/names no coordinate system/);
  });

  it('reads the GeoTIFF keys: projected before geographic, the vertical system, user-defined ones as a problem', () => {
    expect(
      crsOfGeoKeys(
        geoKeys([
          [1024, 1],
          [3072, 32633],
          [4096, 5703],
        ]),
      ),
    ).toEqual({
      source: 'lasGeoTiff',
      epsg: 32633,
      vertical: 'EPSG:5703',
    });
    expect(
      crsOfGeoKeys(
        geoKeys([
          [1024, 2],
          [2048, 4326],
        ]),
      ),
    ).toEqual({ source: 'lasGeoTiff', epsg: 4326 });
    expect(
      crsOfGeoKeys(
        geoKeys([
          [1024, 1],
          [2048, 4326],
          [3072, 32767],
        ]),
      ).problem,
    ).toMatch(/define their own/);
    expect(crsOfGeoKeys(geoKeys([[1024, 3]])).problem).toMatch(/geocentric/);
    expect(crsOfGeoKeys(geoKeys([[1025, 1]])).problem).toMatch(/name no/);
    expect(crsOfGeoKeys(Uint16Array.from([1, 1])).problem).toMatch(/cut short/);
  });

  it('knows the UTM families by zone and a few national grids', () => {
    expect(epsgDefinition(32632)).toBe('+proj=utm +zone=32 +datum=WGS84 +units=m +no_defs');
    expect(epsgDefinition(32760)).toBe('+proj=utm +zone=60 +south +datum=WGS84 +units=m +no_defs');
    expect(epsgDefinition(25833)).toBe('+proj=utm +zone=33 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs');
    expect(epsgDefinition(26910)).toContain('+zone=10 +datum=NAD83');
    expect(epsgDefinition(7855)).toContain('+zone=55 +south');
    expect(epsgDefinition(27700)).toContain('+ellps=airy');
    expect(epsgDefinition(32661)).toBeUndefined();
    expect(epsgDefinition(25839)).toBeUndefined();
    expect(epsgDefinition(999_999)).toBeUndefined();
  });
});
