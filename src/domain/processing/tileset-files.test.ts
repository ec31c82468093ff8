import { describe, expect, it } from 'vitest';
import { derivativeTilesetUrl, nodeThumbnailUrl } from '../nodes/content-urls.js';
import { tilesetFile } from './tileset-files.js';

describe('the files of a served tileset', () => {
  it('names the tileset and the tiles the tiler writes, with their media types', () => {
    expect(tilesetFile('tileset.json')).toEqual({ path: 'tileset.json', contentType: 'application/json' });
    expect(tilesetFile('tiles/r0123.glb')).toEqual({ path: 'tiles/r0123.glb', contentType: 'model/gltf-binary' });
    expect(tilesetFile('tiles/r%30.glb')).toEqual({ path: 'tiles/r0.glb', contentType: 'model/gltf-binary' });
    expect(tilesetFile('tiles/a/b.pnts')?.contentType).toBe('application/octet-stream');
  });

  it.each([
    '',
    'thumbnail.png',
    'tiles',
    'tiles/',
    'tiles/r.txt',
    '/tiles/r.glb',
    'tiles//r.glb',
    '../tileset.json',
    'tiles/../tileset.json',
    'tiles/./r.glb',
    'tiles/.r.glb',
    'tiles/%2e%2e/r.glb',
    'tiles%2Fr.glb',
    'tiles/a%2Fb.glb',
    'tiles/a%5Cb.glb',
    'tiles\\r.glb',
    'tiles/%E0%A4%A.glb',
    'tiles/r.glb%00',
    `tiles/${'a'.repeat(260)}.glb`,
  ])('refuses %j', (path) => {
    expect(tilesetFile(path)).toBeUndefined();
  });

  it("builds absolute addresses from the region base, a tileset only for a point cloud's or a mesh's out of the trash", () => {
    const api = 'https://api.example.com/eu/reality';
    expect(nodeThumbnailUrl(api, 'n1')).toBe('https://api.example.com/eu/reality/v1/nodes/n1/thumbnail');
    expect(derivativeTilesetUrl(api, { id: 'd1', kind: 'pointCloud', format: '3d-tiles' })).toBe(
      'https://api.example.com/eu/reality/v1/nodes/d1/tiles/tileset.json',
    );
    const trashedAt = '2026-01-01T00:00:00.000Z';
    expect(derivativeTilesetUrl(api, { id: 'd1', kind: 'pointCloud', format: '3d-tiles', trashed_at: trashedAt })).toBeNull();
    // A video's reconstruction is a mesh node without a tileset; the mesh tiler's has one.
    expect(derivativeTilesetUrl(api, { id: 'd2', kind: 'mesh', format: 'reconstruction' })).toBeNull();
    expect(derivativeTilesetUrl(api, { id: 'd3', kind: 'mesh', format: '3d-tiles' })).toBe(
      'https://api.example.com/eu/reality/v1/nodes/d3/tiles/tileset.json',
    );
    expect(derivativeTilesetUrl(api, { id: 'd3', kind: 'mesh', format: '3d-tiles', trashed_at: trashedAt })).toBeNull();
    expect(derivativeTilesetUrl(api, { id: 'd4', kind: 'siteFile', format: '3d-tiles' })).toBeNull();
    expect(derivativeTilesetUrl(api, undefined)).toBeNull();
  });
});
