import { describe, expect, it } from 'vitest';
import { contentRange, parseByteRange } from './byte-range.js';
import { attachmentDisposition } from './content-disposition.js';

describe('Range headers', () => {
  it('reads a first-last, an open-ended and a suffix range, clamped to the size', () => {
    expect(parseByteRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseByteRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(contentRange({ start: 90, end: 99 }, 100)).toBe('bytes 90-99/100');
  });

  it('finds a range starting beyond the end unsatisfiable', () => {
    expect(parseByteRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=100-200', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseByteRange('bytes=0-', 0)).toBe('unsatisfiable');
  });

  it('ignores what it does not serve: no header, other units, several ranges, bad syntax', () => {
    for (const header of [undefined, 'items=0-1', 'bytes=0-1,5-6', 'bytes=5-1', 'bytes=-', 'bytes=a-b']) {
      expect(parseByteRange(header, 100)).toBeUndefined();
    }
  });
});

describe('Content-Disposition', () => {
  it('carries an ASCII fallback and the exact UTF-8 name', () => {
    expect(attachmentDisposition('scan.laz')).toBe(`attachment; filename="scan.laz"; filename*=UTF-8''scan.laz`);
    expect(attachmentDisposition('Nord "é" (1).e57')).toBe(
      `attachment; filename="Nord ___ (1).e57"; filename*=UTF-8''Nord%20%22%C3%A9%22%20%281%29.e57`,
    );
  });
});
