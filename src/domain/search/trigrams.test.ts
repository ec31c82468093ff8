import { describe, expect, it } from 'vitest';
import { float4Decimal, similarity, trigrams } from './trigrams.js';

/** A trigram as pg_trgm's show_trgm() prints one made of plain characters. */
const text = (trigram: number) => String.fromCharCode(trigram >> 16, (trigram >> 8) & 0xff, trigram & 0xff);

// Expected values are PostgreSQL 15's (pg_trgm 1.6), read with similarity(a, b)::float8.
describe('name closeness (pg_trgm similarity)', () => {
  it('gives the value pg_trgm documents, as a float4', () => {
    expect(similarity('word', 'two words')).toBe(0.3636363744735718);
    expect(similarity('word', 'two words')).toBe(Math.fround(4 / 11));
    expect(float4Decimal(similarity('word', 'two words'))).toBe(0.36363637);
  });

  it('is 1 for the same text and 0 for texts sharing no trigram', () => {
    expect(similarity('word', 'word')).toBe(1);
    expect(similarity('x', 'x')).toBe(1);
    expect(similarity('abc', 'xyz')).toBe(0);
  });

  it('is 0 when either text has no word, the empty text and punctuation alone included', () => {
    expect(similarity('', '')).toBe(0);
    expect(similarity('', 'abc')).toBe(0);
    expect(similarity('...', '!?')).toBe(0);
    expect(similarity('...', '...')).toBe(0);
    expect(trigrams(' -_.,;:!?/\\()[]{}"\'+*=&%$#@^~`|<>')).toEqual([]);
  });

  it('pads each word with two spaces in front and one behind', () => {
    expect(trigrams('cat').map(text)).toEqual(['  c', ' ca', 'at ', 'cat']);
    expect(trigrams('a').map(text)).toEqual(['  a', ' a ']);
    expect(similarity('tank', 'tanks')).toBe(Math.fround(4 / 7));
  });

  it('splits words at anything not a letter or digit, the underscore included', () => {
    expect(similarity('a_b', 'a b')).toBe(1);
    expect(similarity('Pump 12', 'pump-12')).toBe(1);
    expect(similarity('pump', 'PUMP_')).toBe(1);
    expect(similarity('ab', 'a-b')).toBe(0.1666666716337204);
    expect(similarity('foo bar', 'bar foo')).toBe(1);
  });

  it('reads digits as word characters', () => {
    expect(trigrams('12').map(text)).toEqual(['  1', ' 12', '12 ']);
    expect(similarity('12', '123')).toBe(0.4000000059604645);
  });

  it('ignores case, one character at a time as towlower() does', () => {
    expect(similarity('Hello World', 'hello world')).toBe(1);
    expect(similarity('café', 'CAFÉ')).toBe(1);
    expect(similarity('Straße', 'STRASSE')).toBe(0.3636363744735718);
    expect(similarity('İstanbul', 'istanbul')).toBe(1);
    expect(similarity('\u212Aelvin', 'kelvin')).toBe(1);
    expect(similarity('Σ', 'σ')).toBe(1);
    expect(similarity('ǅemal', 'džemal')).toBe(0.30000001192092896);
    expect(similarity('ⱥb', 'Ⱥb')).toBe(1);
  });

  it('takes long texts of many short words whole', () => {
    const words = Array.from({ length: 500 }, (_, index) => `w${index}`);
    // 2,389 characters, 2,900 trigrams of which 611 distinct (PostgreSQL's show_trgm() count).
    expect(trigrams(words.join(' '))).toHaveLength(611);
    // One word of 300 CJK characters: 301 trigrams, all distinct, each hashed.
    const longWord = Array.from({ length: 300 }, (_, index) => String.fromCodePoint(0x4e00 + index)).join('');
    expect(trigrams(longWord)).toHaveLength(301);
    expect(similarity(words.join(' '), [...words].reverse().join('-'))).toBe(1);
    expect(trigrams('a '.repeat(1000))).toEqual(trigrams('a'));
  });

  it('counts a repeated trigram once', () => {
    expect(trigrams('aaaaaa').map(text)).toEqual(['  a', ' aa', 'aa ', 'aaa']);
    expect(similarity('aaaaaa', 'aaa')).toBe(1);
    expect(similarity('abc', 'abcabc')).toBe(0.6666666865348816);
  });

  it('reduces a trigram with a character beyond ASCII to three bytes of a CRC, as pg_trgm does', () => {
    // show_trgm('ÉCOLE') on PostgreSQL: {0xb1353e,0xc23c9d,0xe69b54,col,"le ",ole}
    expect(
      trigrams('ÉCOLE')
        .map((trigram) => trigram.toString(16))
        .sort(),
    ).toEqual(['636f6c', '6c6520', '6f6c65', 'b1353e', 'c23c9d', 'e69b54']);
    // Letters and digits of any script are word characters; ² is no digit to pg_trgm.
    expect(
      trigrams('é中ß Ö_ø 12')
        .map((trigram) => trigram.toString(16))
        .sort(),
    ).toEqual(
      ['13965c', '14bbe4', '202031', '203132', '313220', '35aeb2', '3ed3bd', '75264c', 'ae560f', 'b4fe4d', 'e69b54'].sort(),
    );
    expect(trigrams('٣ Ⅻ ª').length).toBe(6);
    expect(similarity('x²', 'x')).toBe(1);
  });

  it('prints a closeness as PostgreSQL prints a real', () => {
    expect(float4Decimal(Math.fround(1 / 3))).toBe(0.33333334);
    expect(float4Decimal(Math.fround(4 / 7))).toBe(0.5714286);
    expect(float4Decimal(Math.fround(3 / 10))).toBe(0.3);
    // 97/512 is 0.189453125 exactly: a tie between 0.18945312 and 0.18945313 goes to the even digit.
    expect(float4Decimal(Math.fround(97 / 512))).toBe(0.18945312);
    expect(float4Decimal(1)).toBe(1);
    expect(float4Decimal(0)).toBe(0);
  });
});
