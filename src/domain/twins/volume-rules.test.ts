import { describe, expect, it } from 'vitest';
import { normalizedRotation, normalizedVolume } from './volume-rules.js';

describe('volume rules', () => {
  it('normalises a rotation whose norm is within 1 ± 1e-3', () => {
    expect(normalizedRotation({ x: 0, y: 0, z: 0, w: 1 }, 'r')).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    expect(normalizedRotation({ x: 0, y: 0, z: 0, w: 1.000999 }, 'r')).toEqual({ x: 0, y: 0, z: 0, w: 1 });
    const half = normalizedRotation({ x: 0.5005, y: 0.5005, z: 0.5005, w: 0.5005 }, 'r');
    for (const value of Object.values(half)) expect(value).toBeCloseTo(0.5, 15);
  });

  it('refuses a norm beyond the tolerance, zero or not finite, naming the field', () => {
    for (const rotation of [
      { x: 0, y: 0, z: 0, w: 1.0011 },
      { x: 0, y: 0, z: 0, w: 0.9989 },
      { x: 0, y: 0, z: 0, w: 0 },
      { x: 1, y: 1, z: 1, w: 1 },
      { x: Number.NaN, y: 0, z: 0, w: 1 },
      { x: Number.POSITIVE_INFINITY, y: 0, z: 0, w: 1 },
    ]) {
      expect(() => normalizedRotation(rotation, 'body.rotation'), JSON.stringify(rotation)).toThrow(/^body\.rotation: the norm/);
    }
  });

  it('names the first box whose rotation is refused, and keeps the other fields of every box', () => {
    const good = { center: { x: 1, y: 2, z: 3 }, size: { x: 1, y: 1, z: 1 }, rotation: { x: 0, y: 0, z: 0, w: 1.0005 } };
    const volume = normalizedVolume({ boxes: [good, good] }, 'body.volume');
    expect(volume.boxes).toEqual([
      { ...good, rotation: { x: 0, y: 0, z: 0, w: 1 } },
      { ...good, rotation: { x: 0, y: 0, z: 0, w: 1 } },
    ]);
    const bad = { ...good, rotation: { x: 0, y: 0, z: 0, w: 2 } };
    expect(() => normalizedVolume({ boxes: [good, good, bad, bad] }, 'body.volume')).toThrow(
      /^body\.volume\.boxes\.2\.rotation: /,
    );
  });

  it('gives a unit rotation back exactly as sent (dividing by a norm of 1 + 2e-16 would move it by an ulp)', () => {
    const half = Math.SQRT1_2;
    expect(normalizedRotation({ x: 0, y: 0, z: half, w: half }, 'r')).toEqual({ x: 0, y: 0, z: half, w: half });
    const third = 1 / Math.sqrt(3);
    expect(normalizedRotation({ x: third, y: third, z: third, w: 0 }, 'r')).toEqual({ x: third, y: third, z: third, w: 0 });
  });
});
