import { describe, expect, it } from 'vitest';
import { angleAt, formatValue, measurementValue, planarArea, polylineLength } from '../../viewer/src/tools/measure-math.js';

/** The viewer's measuring math (docs/design/measurements.md, "Values") against values computed by hand. */
describe("the viewer's measurement values", () => {
  it('measures a distance and a height', () => {
    const a = { x: 1, y: 2, z: 3 };
    const b = { x: 4, y: 6, z: 15 };
    expect(measurementValue('distance', [a, b])).toEqual({ value: 13, unit: 'm' });
    expect(measurementValue('height', [b, a])).toEqual({ value: 12, unit: 'm' });
  });

  it('sums a thousand-point polyline', () => {
    // A helix: each step 0.01 rad around a 2 m radius and 0.003 m up, so each segment's length is known.
    const points = Array.from({ length: 1000 }, (_, i) => ({ x: 2 * Math.cos(i / 100), y: 2 * Math.sin(i / 100), z: 0.003 * i }));
    const segment = Math.hypot(2 * 2 * Math.sin(0.005), 0.003);
    expect(polylineLength(points)).toBeCloseTo(999 * segment, 9);
    expect(measurementValue('polyline', points).unit).toBe('m');
  });

  it("measures a tilted 3-4-5 triangle's area and a tilted square's on their own plane", () => {
    // Legs 3 and 4 in a plane tilted about the x axis by 30 degrees.
    const c = Math.cos(Math.PI / 6);
    const s = Math.sin(Math.PI / 6);
    const tilt = (u: number, v: number) => ({ x: 100 + u, y: 50 + v * c, z: 7 + v * s });
    expect(planarArea([tilt(0, 0), tilt(3, 0), tilt(0, 4)])).toBeCloseTo(6, 9);
    expect(measurementValue('area', [tilt(0, 0), tilt(2, 0), tilt(2, 2), tilt(0, 2)])).toEqual({
      value: expect.closeTo(4, 9),
      unit: 'm2',
    });
    // Vertical, as a wall is.
    expect(
      planarArea([
        { x: 0, y: 0, z: 0 },
        { x: 5, y: 0, z: 0 },
        { x: 5, y: 0, z: 3 },
        { x: 0, y: 0, z: 3 },
      ]),
    ).toBeCloseTo(15, 9);
  });

  it('measures the angle at the middle point', () => {
    expect(angleAt({ x: 5, y: 0, z: 0 }, { x: 0, y: 0, z: 0 }, { x: 0, y: 0, z: 2 })).toBeCloseTo(90, 9);
    expect(
      measurementValue('angle', [
        { x: 1, y: 0, z: 0 },
        { x: 0, y: 0, z: 0 },
        { x: 1, y: 1, z: 0 },
      ]),
    ).toEqual({
      value: expect.closeTo(45, 9),
      unit: 'deg',
    });
  });

  it('shows values with 2 decimals and their unit', () => {
    expect(formatValue(10.004, 'm')).toBe('10.00 m');
    expect(formatValue(6, 'm2')).toBe('6.00 m²');
    expect(formatValue(90, 'deg')).toBe('90.00°');
  });
});
