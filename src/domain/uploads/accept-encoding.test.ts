import { describe, expect, it } from 'vitest';
import { acceptsGzip } from './accept-encoding.js';

describe('acceptsGzip', () => {
  it('takes gzip, x-gzip or * when listed without q=0', () => {
    expect(acceptsGzip('gzip, deflate, br')).toBe(true);
    expect(acceptsGzip('br;q=1.0, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('x-gzip')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip(['deflate', 'gzip'])).toBe(true);
  });

  it('refuses it when absent, refused by q=0, or only identity is asked for', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('')).toBe(false);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('br, deflate')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    expect(acceptsGzip('gzip; q=0.0, *;q=1')).toBe(false);
    expect(acceptsGzip('*;q=0')).toBe(false);
  });
});
