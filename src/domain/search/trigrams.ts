import { WORD_CHARACTER_RANGES } from './word-characters.js';

/**
 * The least closeness a fuzzy name match keeps (docs/design/search.md#name-closeness). PostgreSQL
 * connections set pg_trgm's similarity_threshold to it, so the `%` operator finds exactly these
 * candidates whatever the server's setting.
 */
export const FUZZY_CLOSENESS = 0.3;

/**
 * Name closeness: PostgreSQL pg_trgm's `similarity(a, b)` (pg_trgm 1.6, PostgreSQL 15), number
 * for number, so that SQLite (where this function is registered) and PostgreSQL (where pg_trgm
 * computes it) give the same values and the same order. pg_trgm, in trgm_op.c:
 * - splits the text into words: runs of word characters (iswalnum() under the database's
 *   LC_CTYPE; see word-characters.ts). Anything else, the underscore included, separates words.
 * - lower-cases each word one character at a time (towlower(): a simple one-to-one mapping).
 * - pads each word with two spaces in front and one behind, and takes every run of three
 *   characters of it. Three one-byte (ASCII) characters are the trigram itself; any other
 *   three are reduced to three bytes of a CRC-32 of their UTF-8 bytes (compact_trigram), so
 *   two different such trigrams may, rarely, count as the same one, as they do in pg_trgm.
 * - counts each distinct trigram once: similarity = shared / (|a| + |b| - shared), computed in
 *   float4, and 0 when either text has no trigram.
 */
export function similarity(a: string, b: string): number {
  return trigramSimilarity(trigrams(a), trigrams(b));
}

/** The similarity of two texts' trigrams (each sorted and distinct, as `trigrams` returns them). */
export function trigramSimilarity(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) {
      i++;
    } else {
      j++;
    }
  }
  // pg_trgm divides in float4; a double quotient rounded to float4 is the same number (a
  // quotient rounded to 53 bits and then to 24 never differs from one rounded to 24 at once).
  return Math.fround(shared / (a.length + b.length - shared));
}

/** A text's distinct trigrams, each as its three bytes read as one number, in ascending order. */
export function trigrams(text: string): number[] {
  // A word of n characters, padded, has n + 1 trigrams: never more than two per UTF-16 unit.
  if (scratch.length < text.length * 2) scratch = new Int32Array(text.length * 2);
  let count = 0;
  // The two characters before the current one in the padded word; a word starts after two spaces.
  let first = SPACE;
  let second = SPACE;
  let inWord = false;
  for (let index = 0; index < text.length; index++) {
    let code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        index++;
      }
    }
    if (isWordCharacter(code)) {
      const lower = lowerCase(code);
      scratch[count++] = trigramCode(first, second, lower);
      first = second;
      second = lower;
      inWord = true;
    } else if (inWord) {
      scratch[count++] = trigramCode(first, second, SPACE);
      first = SPACE;
      second = SPACE;
      inWord = false;
    }
  }
  if (inWord) scratch[count++] = trigramCode(first, second, SPACE);
  const sorted = scratch.subarray(0, count).sort();
  const distinct: number[] = [];
  for (let index = 0; index < count; index++) {
    const trigram = sorted[index] as number;
    if (index === 0 || trigram !== sorted[index - 1]) distinct.push(trigram);
  }
  return distinct;
}

/** Where trigrams() collects a text's trigrams before sorting them (one call at a time: no I/O, no await). */
let scratch = new Int32Array(512);

/**
 * The number PostgreSQL prints for a `real` (float4): the shortest decimal that reads back as the
 * same float4, the nearest such to it, an exact tie going to the even last digit (Ryu, as
 * PostgreSQL 12 and later print). What an answer shows as a closeness, read from either store, so
 * both print the same digits (PostgreSQL sends 0.36363637 where SQLite holds 0.3636363744735718).
 */
export function float4Decimal(value: number): number {
  const single = Math.fround(value);
  if (!Number.isFinite(single) || single === 0) return single;
  // A float4 is a double; toExponential(99) writes a closeness's decimal expansion out in full
  // (a float4 of 2^-64 or more has fewer than 60 significant digits).
  const [mantissa, exponentText] = Math.abs(single).toExponential(99).split('e') as [string, string];
  const digits = mantissa.replace('.', '').replace(/0+$/, '');
  const exponent = Number(exponentText);
  const sign = single < 0 ? '-' : '';
  for (let length = 1; length <= digits.length; length++) {
    const down = BigInt(digits.slice(0, length));
    const rest = digits.slice(length);
    const decimal = (scaled: bigint) => Number(`${sign}${scaled}e${exponent - length + 1}`);
    const readsBack = (scaled: bigint) => Math.fround(decimal(scaled)) === single;
    if (rest === '') return decimal(down);
    // Which of the two neighbours at this length is nearer: the digits cut off against one half.
    const halfway = '5'.padEnd(rest.length, '0');
    const up = down + 1n;
    const nearer = rest < halfway || (rest === halfway && down % 2n === 0n) ? down : up;
    const farther = nearer === down ? up : down;
    if (readsBack(nearer)) return decimal(nearer);
    if (readsBack(farther)) return decimal(farther);
  }
  return single;
}

const SPACE = 0x20;

function trigramCode(first: number, second: number, third: number): number {
  if (first < 0x80 && second < 0x80 && third < 0x80) return (first << 16) | (second << 8) | third;
  let crc = 0xffffffff;
  crc = crcOfCodePoint(crc, first);
  crc = crcOfCodePoint(crc, second);
  crc = crcOfCodePoint(crc, third);
  crc = ~crc >>> 0;
  // pg_trgm copies the CRC's first three bytes in memory: on a little-endian machine (x86-64,
  // ARM64), its low three bytes, lowest first.
  return ((crc & 0xff) << 16) | (crc & 0xff00) | ((crc >>> 16) & 0xff);
}

/** PostgreSQL's legacy CRC-32 (pg_crc.h, LEGACY_CRC32) over a code point's UTF-8 bytes. */
function crcOfCodePoint(crc: number, code: number): number {
  if (code < 0x80) return crcOfByte(crc, code);
  if (code < 0x800) return crcOfByte(crcOfByte(crc, 0xc0 | (code >> 6)), 0x80 | (code & 0x3f));
  if (code < 0x10000) {
    crc = crcOfByte(crc, 0xe0 | (code >> 12));
    return crcOfByte(crcOfByte(crc, 0x80 | ((code >> 6) & 0x3f)), 0x80 | (code & 0x3f));
  }
  crc = crcOfByte(crcOfByte(crc, 0xf0 | (code >> 18)), 0x80 | ((code >> 12) & 0x3f));
  return crcOfByte(crcOfByte(crc, 0x80 | ((code >> 6) & 0x3f)), 0x80 | (code & 0x3f));
}

/**
 * The legacy algorithm indexes the table by the CRC's high byte and shifts left, while the table
 * is the usual reflected CRC-32 one (polynomial 0xEDB88320): a mix PostgreSQL keeps for
 * compatibility with what it stored before 9.5, pg_trgm's trigrams among them.
 */
function crcOfByte(crc: number, byte: number): number {
  return ((CRC_TABLE[((crc >>> 24) ^ byte) & 0xff] as number) ^ (crc << 8)) >>> 0;
}

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit++) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

/** First and last code point of each range of word characters, in ascending order. */
const WORD_RANGES = (() => {
  const items = WORD_CHARACTER_RANGES.trim().split(/\s+/);
  const firsts = new Uint32Array(items.length);
  const lasts = new Uint32Array(items.length);
  items.forEach((item, index) => {
    const [first, last = first] = item.split('-').map((hex) => Number.parseInt(hex, 16)) as [number, number?];
    firsts[index] = first;
    lasts[index] = last;
  });
  return { firsts, lasts };
})();

function isWordCharacter(code: number): boolean {
  if (code < 0x80) return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
  const { firsts, lasts } = WORD_RANGES;
  let low = 0;
  let high = firsts.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < (firsts[middle] as number)) high = middle - 1;
    else if (code > (lasts[middle] as number)) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * towlower(): one character to one. JavaScript's toLowerCase agrees with it on every word
 * character (checked against PostgreSQL for all of them) except İ (U+0130), whose full lower
 * case is two characters: i and a combining dot.
 */
function lowerCase(code: number): number {
  if (code < 0x80) return code >= 0x41 && code <= 0x5a ? code + 0x20 : code;
  if (code === 0x130) return 0x69;
  return String.fromCodePoint(code).toLowerCase().codePointAt(0) as number;
}
