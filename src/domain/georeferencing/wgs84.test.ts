import proj4 from 'proj4';
import { describe, expect, it } from 'vitest';
import { eastNorthUpToFixedFrame, ecefToEastNorthUp, ecefToGeodetic, geodeticToEcef, multiplyMatrices } from './wgs84.js';

const ecefOfProj4 = proj4('WGS84', '+proj=geocent +datum=WGS84 +units=m +no_defs');

describe('WGS84 frames', () => {
  it('gives the east-north-up frame on the equator at the prime meridian', () => {
    expect(eastNorthUpToFixedFrame({ longitude: 0, latitude: 0, height: 0 })).toEqual([
      -0, 1, 0, 0, -0, -0, 1, 0, 1, 0, 0, 0, 6_378_137, 0, 0, 1,
    ]);
  });

  it('gives the east-north-up frame at 45N 0E (known ECEF of the ellipsoid there)', () => {
    const m = eastNorthUpToFixedFrame({ longitude: 0, latitude: 45, height: 0 });
    const s = Math.SQRT1_2;
    const expected = [0, 1, 0, 0, -s, 0, s, 0, s, 0, s, 0, 4_517_590.878849, 0, 4_487_348.408866, 1];
    m.forEach((value, i) => {
      expect(value).toBeCloseTo(expected[i]!, i >= 12 ? 5 : 12);
    });
  });

  it('takes an east-north-up offset where a local east, north and up step really go', () => {
    const place = { longitude: 9.5, latitude: 48.2, height: 310 };
    const frame = eastNorthUpToFixedFrame(place);
    const point = multiplyMatrices(frame, [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 100, -50, 7, 1]).slice(12, 15);
    const enu = ecefToEastNorthUp(point as [number, number, number], place);
    expect(enu[0]).toBeCloseTo(100, 9);
    expect(enu[1]).toBeCloseTo(-50, 9);
    expect(enu[2]).toBeCloseTo(7, 9);
  });

  it('converts geodetic to ECEF and back as proj4 does', () => {
    for (const place of [
      { longitude: 0, latitude: 0, height: 0 },
      { longitude: 9.5, latitude: 48.2, height: 310.25 },
      { longitude: -122.4, latitude: 37.8, height: -30 },
      { longitude: 151.2, latitude: -33.9, height: 1200 },
      { longitude: 25, latitude: 89.5, height: 10 },
    ]) {
      const ecef = geodeticToEcef(place);
      const reference = ecefOfProj4.forward([place.longitude, place.latitude, place.height]) as number[];
      ecef.forEach((value, i) => {
        expect(value).toBeCloseTo(reference[i]!, 6);
      });
      const back = ecefToGeodetic(ecef);
      expect(back.longitude).toBeCloseTo(place.longitude, 10);
      expect(back.latitude).toBeCloseTo(place.latitude, 10);
      expect(back.height).toBeCloseTo(place.height, 6);
    }
  });
});
