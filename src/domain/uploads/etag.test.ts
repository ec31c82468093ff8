import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { etagOfBytes, multipartEtag, parseEtag, quoteEtag, singlePutEtag } from './etag.js';

const md5 = (data: string | Buffer) => createHash('md5').update(data).digest();

describe('S3-style ETags', () => {
  it('is the MD5 hex of the bytes for one PUT', () => {
    expect(singlePutEtag(md5('hello'))).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(etagOfBytes(Buffer.from('hello'))).toBe('5d41402abc4b2a76b9719d911017c592');
  });

  it('is the MD5 of the concatenated binary part MD5s, then -N, for a multipart upload', () => {
    // Known answer, as S3 gave it for a 5 MiB part of 0x01 bytes followed by "tail".
    const parts = [md5(Buffer.alloc(5 * 1024 * 1024, 1)), md5('tail')];
    expect(multipartEtag(parts)).toBe('1b5586dcc4c977ad9eb82c917af59a83-2');
    const bytes = Buffer.concat([Buffer.alloc(5 * 1024 * 1024, 1), Buffer.from('tail')]);
    expect(etagOfBytes(bytes, 5 * 1024 * 1024)).toBe('1b5586dcc4c977ad9eb82c917af59a83-2');
  });

  it('differs from the single-PUT ETag even with one part', () => {
    expect(multipartEtag([md5('hello')])).toBe(`${createHash('md5').update(md5('hello')).digest('hex')}-1`);
    expect(() => multipartEtag([])).toThrow();
  });

  it('reads an ETag back as a client sends it, and refuses what is not one', () => {
    expect(parseEtag('"5D41402ABC4B2A76B9719D911017C592"')).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(parseEtag('W/"1b5586dcc4c977ad9eb82c917af59a83-2"')).toBe('1b5586dcc4c977ad9eb82c917af59a83-2');
    expect(parseEtag(quoteEtag('5d41402abc4b2a76b9719d911017c592'))).toBe('5d41402abc4b2a76b9719d911017c592');
    for (const bad of [
      undefined,
      '',
      '"abc"',
      '5d41402abc4b2a76b9719d911017c59',
      '5d41402abc4b2a76b9719d911017c592-0',
      'zz41402abc4b2a76b9719d911017c592',
    ]) {
      expect(parseEtag(bad)).toBeUndefined();
    }
  });
});
