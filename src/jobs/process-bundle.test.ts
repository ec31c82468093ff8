import { describe, expect, it } from 'vitest';
import { safeFileName } from './process-bundle.js';

describe("a mesh session's file names in the job's folder", () => {
  it('writes a name as it is only when it is one path segment', () => {
    for (const name of ['scan.obj', 'Wall texture (1).JPG', 'a.b.c.png', 'ä-ü.mtl', '.hidden.png']) {
      expect(safeFileName(name), name).toBe(true);
    }
    for (const name of ['.', '..', 'textures/wall.png', '..\\scan.obj', '/etc/passwd', 'a\0b', '   ', 'é'.repeat(128)]) {
      expect(safeFileName(name), name).toBe(false);
    }
  });
});
