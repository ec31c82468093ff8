/**
 * MD5 (RFC 1321) of a few bytes: the ETag a multipart upload is finalized with is, as S3 computes
 * it, the MD5 of its parts' binary MD5s (16 bytes a part). WebCrypto has no MD5, and this is all
 * the console needs of it: the parts' own MD5s come from the storage's answers (their ETags).
 */
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
const CONSTANTS = Array.from({ length: 64 }, (_, index) => Math.floor(Math.abs(Math.sin(index + 1)) * 2 ** 32) >>> 0);

export function md5Hex(bytes: Uint8Array): string {
  const length = bytes.length;
  const padded = new Uint8Array((((length + 8) >> 6) + 1) * 64);
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, (length * 8) >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(length / 2 ** 29), true);
  let a0 = 0x67452301;
  let b0 = 0xefcdab89;
  let c0 = 0x98badcfe;
  let d0 = 0x10325476;
  for (let block = 0; block < padded.length; block += 64) {
    let [a, b, c, d] = [a0, b0, c0, d0];
    for (let step = 0; step < 64; step++) {
      const round = step >> 4;
      const [f, word] =
        round === 0
          ? [(b & c) | (~b & d), step]
          : round === 1
            ? [(d & b) | (~d & c), (5 * step + 1) % 16]
            : round === 2
              ? [b ^ c ^ d, (3 * step + 5) % 16]
              : [c ^ (b | ~d), (7 * step) % 16];
      const sum = (a + f + (CONSTANTS[step] as number) + view.getUint32(block + word * 4, true)) >>> 0;
      const shift = SHIFTS[round * 4 + (step % 4)] as number;
      a = d;
      d = c;
      c = b;
      b = (b + ((sum << shift) | (sum >>> (32 - shift)))) >>> 0;
    }
    a0 = (a0 + a) >>> 0;
    b0 = (b0 + b) >>> 0;
    c0 = (c0 + c) >>> 0;
    d0 = (d0 + d) >>> 0;
  }
  const out = new DataView(new ArrayBuffer(16));
  for (const [index, word] of [a0, b0, c0, d0].entries()) out.setUint32(index * 4, word, true);
  return Array.from(new Uint8Array(out.buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The ETag of a multipart upload from its parts' ETags (hex MD5s, in part order): `md5(parts)-N`. */
export function multipartEtag(partEtags: string[]): string {
  const joined = new Uint8Array(partEtags.length * 16);
  partEtags.forEach((etag, index) => {
    for (let byte = 0; byte < 16; byte++) joined[index * 16 + byte] = Number.parseInt(etag.slice(byte * 2, byte * 2 + 2), 16);
  });
  return `${md5Hex(joined)}-${partEtags.length}`;
}
