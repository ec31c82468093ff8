import { describe, expect, it } from 'vitest';
import { MEASUREMENT } from './kinds/measurement.js';
import { measuredValue, selfIntersection } from './measurement-values.js';
import type { Vector3 } from './object-fields.js';

const p = (x: number, y: number, z: number): Vector3 => ({ x, y, z });

/** A rotation about the axis (1, 1, 1)/√3 by 40°, then a shift: a plane at a slant, far from the origin. */
function tilt(point: Vector3): Vector3 {
  const k = [1, 1, 1].map((c) => c / Math.sqrt(3)) as [number, number, number];
  const angle = (40 * Math.PI) / 180;
  const [c, s] = [Math.cos(angle), Math.sin(angle)];
  const v = [point.x, point.y, point.z] as [number, number, number];
  const kv = k[0] * v[0] + k[1] * v[1] + k[2] * v[2];
  const kx = [k[1] * v[2] - k[2] * v[1], k[2] * v[0] - k[0] * v[2], k[0] * v[1] - k[1] * v[0]];
  const r = v.map((vi, i) => vi * c + (kx[i] as number) * s + (k[i] as number) * kv * (1 - c));
  return p((r[0] as number) + 1234.5, (r[1] as number) - 987.25, (r[2] as number) + 42);
}

describe('measurement values', () => {
  it('measures a distance and a height in metres', () => {
    expect(measuredValue('distance', [p(1, 2, 3), p(4, 6, 3)])).toEqual({ value: 5, unit: 'm' });
    expect(measuredValue('height', [p(1, 2, 3), p(40, -6, 13.5)])).toEqual({ value: 10.5, unit: 'm' });
    expect(measuredValue('height', [p(0, 0, 7), p(0, 0, -3)]).value).toBe(10);
  });

  it("gives a tilted 3-4-5 right triangle's area as 6 m2 and its right angle as 90 deg", () => {
    const [a, b, c] = [tilt(p(0, 0, 0)), tilt(p(3, 0, 0)), tilt(p(0, 4, 0))] as [Vector3, Vector3, Vector3];
    const area = measuredValue('area', [a, b, c]);
    expect(area.unit).toBe('m2');
    expect(area.value).toBeCloseTo(6, 9);
    const angle = measuredValue('angle', [b, a, c]);
    expect(angle.unit).toBe('deg');
    expect(angle.value).toBeCloseTo(90, 9);
    expect(measuredValue('angle', [p(1, 0, 0), p(0, 0, 0), p(1, 1, 0)]).value).toBeCloseTo(45, 12);
    expect(measuredValue('angle', [p(1, 0, 0), p(0, 0, 0), p(-1, 0, 0)]).value).toBeCloseTo(180, 12);
  });

  it('measures a tilted polygon with a reflex corner, and a non-planar one on its least-squares plane', () => {
    // An L of 3 × 3 less 2 × 2: 5 m2, in any plane.
    const ell = [p(0, 0, 0), p(3, 0, 0), p(3, 1, 0), p(1, 1, 0), p(1, 3, 0), p(0, 3, 0)];
    expect(measuredValue('area', ell.map(tilt)).value).toBeCloseTo(5, 9);
    // A square whose corners go ±h off the plane z = 0 in turn: the plane is still z = 0, area 4.
    const h = 0.1;
    const warped = [p(0, 0, h), p(2, 0, -h), p(2, 2, h), p(0, 2, -h)];
    expect(measuredValue('area', warped).value).toBeCloseTo(4, 12);
  });

  it("measures a thousand-point polyline's length as the sum of its segments", () => {
    const points = Array.from({ length: 1000 }, (_, i) => p(Math.cos(i / 10) * 5, Math.sin(i / 10) * 5, i * 0.01));
    let expected = 0;
    for (let i = 1; i < points.length; i++) {
      const [a, b] = [points[i - 1] as Vector3, points[i] as Vector3];
      expected += Math.sqrt((b.x - a.x) ** 2 + (b.y - a.y) ** 2 + (b.z - a.z) ** 2);
    }
    const measured = measuredValue('polyline', points);
    expect(measured.unit).toBe('m');
    expect(measured.value).toBeCloseTo(expected, 9);
    // The chord of 0.1 rad on a radius of 5 with 0.01 of rise, 999 times.
    expect(measured.value).toBeCloseTo(999 * Math.hypot(2 * 5 * Math.sin(0.05), 0.01), 9);
  });

  it('refuses a self-intersecting polygon (a bow tie), also tilted, and one folded onto a line', () => {
    const bowTie = [p(0, 0, 0), p(2, 2, 0), p(2, 0, 0), p(0, 2, 0)];
    expect(() => measuredValue('area', bowTie)).toThrow(/^body\.points: the area's polygon intersects itself/);
    expect(() => measuredValue('area', bowTie.map(tilt))).toThrow(/^body\.points: /);
    expect(() => measuredValue('area', [p(0, 0, 0), p(1, 0, 0), p(2, 0, 0)])).toThrow(/^body\.points: /);
    expect(() => measuredValue('area', [p(0, 0, 0), p(1, 0, 0), p(1, 0, 0), p(0, 1, 0)])).toThrow(/^body\.points: /);
    // Two squares touching at a corner: the boundary meets itself.
    const touching = [p(0, 0, 0), p(1, 0, 0), p(1, 1, 0), p(2, 1, 0), p(2, 2, 0), p(1, 2, 0), p(1, 1, 0), p(0, 1, 0)];
    expect(() => measuredValue('area', touching)).toThrow(/^body\.points: /);
    expect(
      selfIntersection([
        { u: 0, v: 0 },
        { u: 1, v: 0 },
        { u: 1, v: 1 },
        { u: 0, v: 1 },
      ]),
    ).toBeUndefined();
  });

  it('refuses a wrong number of points for the kind, a coordinate that is not finite, and an arm of no length', () => {
    const three = [p(0, 0, 0), p(1, 0, 0), p(0, 1, 0)];
    expect(() => measuredValue('distance', three)).toThrow('body.points: a distance measurement takes 2 points (it has 3)');
    expect(() => measuredValue('height', three.slice(0, 1))).toThrow(/^body\.points: a height measurement takes 2 points/);
    expect(() => measuredValue('angle', three.slice(0, 2))).toThrow(/^body\.points: an angle measurement takes 3 points/);
    expect(() => measuredValue('area', three.slice(0, 2))).toThrow(
      'body.points: an area measurement takes 3 to 1000 points (it has 2)',
    );
    expect(() => measuredValue('polyline', [])).toThrow(/^body\.points: a polyline measurement takes 2 to 1000 points/);
    const many = Array.from({ length: 1001 }, (_, i) => p(i, 0, 0));
    expect(() => measuredValue('polyline', many)).toThrow(/\(it has 1001\)$/);
    expect(() => measuredValue('distance', [p(0, 0, 0), p(1, Number.NaN, 0)])).toThrow(
      'body.points.1.y: must be a finite number',
    );
    expect(() => measuredValue('distance', [p(Number.POSITIVE_INFINITY, 0, 0), p(1, 0, 0)])).toThrow(/^body\.points\.0\.x: /);
    expect(() => measuredValue('angle', [p(0, 0, 0), p(0, 0, 0), p(1, 0, 0)])).toThrow(/^body\.points: /);
    expect(() => measuredValue('volume', three)).toThrow(/^body\.kind: must be one of distance, height, polyline, area, angle$/);
  });

  it('refuses value or unit in a body, and measures again on a PATCH of the points or the kind', () => {
    const input = { name: 'D', kind: 'distance' as const, points: [p(0, 0, 0), p(3, 4, 0)] };
    expect(() => MEASUREMENT.newFields({ ...input, value: 5 } as typeof input)).toThrow(/^body\.value: /);
    expect(() => MEASUREMENT.changes({ unit: 'm' })).toThrow(/^body\.unit: /);
    const fields = MEASUREMENT.newFields(input);
    expect(fields).toMatchObject({ value: 5, unit: 'm', description: '', color: null, metadataTypeId: null });
    const patched = MEASUREMENT.patched?.(fields, { kind: 'height' });
    // Kind, points, value and unit go together, so a draft's patch never mixes with a live change to one of them.
    expect(patched).toEqual({ kind: 'height', points: input.points, value: 0, unit: 'm' });
    expect(MEASUREMENT.patched?.(fields, { points: [p(0, 0, 0), p(0, 0, 2)] })).toMatchObject({ value: 2, unit: 'm' });
    expect(MEASUREMENT.patched?.(fields, { name: 'Renamed' })).toEqual({ name: 'Renamed' });
    expect(() => MEASUREMENT.patched?.(fields, { kind: 'angle' })).toThrow(/^body\.points: an angle measurement takes 3/);
    expect(() => MEASUREMENT.changes({ kind: 'area', points: input.points })).toThrow(/^body\.points: /);
  });
});
