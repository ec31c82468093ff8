import { describe, expect, it } from 'vitest';
import { storedTileAttributes, tileAttributesOf } from './tile-attributes.js';

describe('tile attributes', () => {
  it('names a cloud’s point attributes as a layer does, in one order', () => {
    expect(tileAttributesOf(['position', 'color', 'intensity', 'classification'])).toEqual([
      'rgb',
      'intensity',
      'classification',
    ]);
    expect(tileAttributesOf(['classification', 'position', 'intensity'])).toEqual(['intensity', 'classification']);
    expect(tileAttributesOf(['position'])).toEqual([]);
    expect(tileAttributesOf(['distance', 'position', 'color'])).toEqual(['rgb', 'distance']);
  });

  it('answers ["rgb"] for a processing from before the column, and leaves unknown names out', () => {
    expect(storedTileAttributes(null)).toEqual(['rgb']);
    expect(storedTileAttributes('[]')).toEqual([]);
    expect(storedTileAttributes('["intensity","normals","rgb"]')).toEqual(['rgb', 'intensity']);
    expect(storedTileAttributes('{"rgb":true}')).toEqual([]);
  });
});
