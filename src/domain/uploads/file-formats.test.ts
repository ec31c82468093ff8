import { describe, expect, it } from 'vitest';
import { detectFormat, inputKind, processedFormatsText } from './file-formats.js';

const box = (type: string, brand: string) =>
  Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from(`${type}${brand}`), Buffer.alloc(12)]);

describe('file formats a bundle input may have', () => {
  it('takes an ISO media file for a video, but not a HEIF or AVIF image', () => {
    expect(detectFormat(box('ftyp', 'isom'))).toBe('mp4');
    expect(detectFormat(box('ftyp', 'qt  '))).toBe('mp4');
    expect(detectFormat(box('ftyp', 'heic'))).toBeNull();
    expect(detectFormat(box('ftyp', 'avif'))).toBeNull();
  });

  it('does not take text that happens to have a "G" every 188 bytes for a transport stream', () => {
    const line = `G${'1 2 3 '.repeat(31)}\n`; // 188 characters
    expect(line).toHaveLength(188);
    expect(detectFormat(Buffer.from(line.repeat(4)))).toBe('text');
    const packets = Buffer.alloc(188 * 4);
    for (let at = 0; at < packets.length; at += 188) packets[at] = 0x47;
    expect(detectFormat(packets)).toBe('mpeg-ts');
  });

  it('lists what processing reads, from the table that picks the processor', () => {
    expect(processedFormatsText()).toBe(
      'a point cloud (LAS, LAZ, PLY, E57, XYZ/PTS), a video (MP4/MOV, MKV/WebM, AVI, MPEG-TS) or a mesh (OBJ, glTF, GLB, PLY with faces, with its material and texture files)',
    );
    for (const format of ['pdf', 'png', 'jpeg', 'zip', 'text', 'json', 'ifc', 'mtl', null]) expect(inputKind(format)).toBeNull();
  });
});
