import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { md5Hex, multipartEtag } from '../../console/src/transfer/multipart-etag.js';

const md5 = (bytes: Uint8Array) => createHash('md5').update(bytes).digest();

/** The console's own MD5 (browsers have none) against node:crypto's, and the multipart ETag S3 makes. */
describe("the console's multipart ETag", () => {
  it('computes the MD5 of any bytes as node:crypto does, across block and padding edges', () => {
    for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000]) {
      const bytes = Uint8Array.from({ length }, (_, index) => (index * 31 + 7) & 0xff);
      expect(md5Hex(bytes)).toBe(md5(bytes).toString('hex'));
    }
    fc.assert(fc.property(fc.uint8Array({ maxLength: 600 }), (bytes) => md5Hex(bytes) === md5(bytes).toString('hex')));
  });

  it('combines the parts’ MD5s into md5(their binary MD5s)-N', () => {
    const parts = [Buffer.from('first part'), Buffer.from('second'), Buffer.from('third and last')];
    const expected = `${md5(Buffer.concat(parts.map(md5))).toString('hex')}-3`;
    expect(multipartEtag(parts.map((part) => md5(part).toString('hex')))).toBe(expected);
  });
});
