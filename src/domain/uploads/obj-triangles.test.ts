import { describe, expect, it } from 'vitest';
import { ObjTriangleCounter } from './obj-triangles.js';

/** The count of `text` given in chunks of `size` bytes (all at once without one). */
function count(text: string, size?: number): number {
  const bytes = Buffer.from(text, 'latin1');
  const counter = new ObjTriangleCounter();
  const step = size ?? Math.max(1, bytes.length);
  for (let at = 0; at < bytes.length; at += step) counter.push(bytes.subarray(at, at + step));
  return counter.end();
}

const QUAD_AND_TRIANGLE = [
  '# a quad and a triangle',
  'mtllib box.mtl',
  'v 0 0 0',
  'v 1 0 0',
  'v 1 1 0',
  'v 0 1 0',
  'vt 0 0',
  'vn 0 0 1',
  'usemtl grey',
  'f 1/1/1 2/1/1 3/1/1 4/1/1',
  'f\t1//1\t3//1   4//1',
  '',
].join('\n');

describe('ObjTriangleCounter: the triangles of an OBJ, n - 2 for each face of n corners', () => {
  it('fans polygons and reads every corner form, whatever the chunks', () => {
    expect(count(QUAD_AND_TRIANGLE)).toBe(3);
    for (const size of [1, 2, 3, 7, 64]) expect(count(QUAD_AND_TRIANGLE, size), `chunks of ${size}`).toBe(3);
  });

  it('counts faces as the reader reads them: leading blanks, CRLF, a trailing comment, no last newline', () => {
    expect(count('  f 1 2 3\r\n\tf 1 2 3 4 5\r\n')).toBe(1 + 3);
    expect(count('f 1 2 3 4 # the rest is a comment 5 6 7\n')).toBe(2);
    expect(count('v 0 0 0\nf 1 2 3 4 5 6', 4)).toBe(4);
  });

  it('counts nothing for other statements, faces of fewer than three corners, and no faces', () => {
    expect(count('fo 1 2 3\nvf 1 2 3\n# f 1 2 3\nusemtl f 1 2 3\nl 1 2 3\n')).toBe(0);
    expect(count('f 1 2\nf\nf \n')).toBe(0);
    expect(count('')).toBe(0);
  });

  it('counts a face of many corners across many chunks, and keeps the faces ended so far while reading', () => {
    const corners = 100_002;
    const text = `v 0 0 0\nf ${'1 '.repeat(corners)}\nf 1 1 1\n`;
    expect(count(text, 4096)).toBe(corners - 2 + 1);
    const counter = new ObjTriangleCounter();
    counter.push(Buffer.from('f 1 2 3 4\nf 1 2 3'));
    expect(counter.triangles).toBe(2);
    expect(counter.end()).toBe(3);
  });
});
