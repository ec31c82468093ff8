import { describe, expect, it } from 'vitest';
import type { ComparisonRow } from '../records/regional.js';
import { comparisonLayerOf, type LayerCandidate, layerFrame, layersOf } from './twin-layers.js';

const API = 'https://api.example/eu/reality';
const candidate = (
  bundleId: string,
  derivativeId: string,
  derivativeKind = 'pointCloud',
  derivativeFormat = '3d-tiles',
): LayerCandidate => ({
  bundleId,
  derivativeId,
  derivativeKind,
  derivativeFormat,
  georeference: null,
  bounds: null,
  attributes: null,
});

describe('twin layers', () => {
  it("each bundle shows its newest derivative that serves a tileset, in the bundles' order; none, no layer", () => {
    const newestFirst = [
      // A video's reconstruction: a mesh node whose files are no tileset.
      candidate('b', 'mesh-1', 'mesh', 'reconstruction'),
      candidate('a', 'cloud-2'),
      candidate('b', 'cloud-1'),
      candidate('a', 'cloud-0'),
    ];
    const layers = layersOf(['b', 'a', 'c'], newestFirst, API);
    expect(layers.map((layer) => [layer.bundleId, layer.nodeId, layer.tilesetUrl])).toEqual([
      ['b', 'cloud-1', `${API}/v1/nodes/cloud-1/tiles/tileset.json`],
      ['a', 'cloud-2', `${API}/v1/nodes/cloud-2/tiles/tileset.json`],
    ]);
    expect(layers[0]?.boundingBox).toBeNull();
  });

  it('a bundle processed into a mesh shows a mesh layer: its tileset, its bounds, no point attributes', () => {
    const bounds = JSON.stringify({ min: [-1, -2, 0], max: [3, 4, 5] });
    const newestFirst = [
      { ...candidate('a', 'mesh-2', 'mesh'), bounds },
      candidate('a', 'cloud-1'),
      { ...candidate('b', 'mesh-3', 'mesh'), attributes: '["rgb"]' },
    ];
    const layers = layersOf(['a', 'b'], newestFirst, API);
    expect(layers).toEqual([
      {
        bundleId: 'a',
        nodeId: 'mesh-2',
        kind: 'mesh',
        tilesetUrl: `${API}/v1/nodes/mesh-2/tiles/tileset.json`,
        boundingBox: { min: { x: -1, y: -2, z: 0 }, max: { x: 3, y: 4, z: 5 } },
        frame: { georeferenced: false, crs: null, reason: null, origin: { x: 0, y: 0, z: 0 } },
        attributes: [],
        comparison: null,
      },
      expect.objectContaining({ bundleId: 'b', nodeId: 'mesh-3', kind: 'mesh', attributes: [], comparison: null }),
    ]);
  });

  it("a comparison's layer: its tiles under the comparison's address, its points' distance, what it compared", () => {
    const row = {
      id: 'cmp-1',
      site_id: 'site-1',
      compared_bundle_id: 'b',
      method: 'c2c',
      tolerance: 0.05,
      max_distance: 1,
      attributes: '["rgb"]',
      bounds: JSON.stringify({ min: [0, 0, 0], max: [1, 2, 3] }),
      georeference: null,
    } as ComparisonRow;
    expect(comparisonLayerOf(row, API)).toEqual({
      bundleId: 'b',
      nodeId: 'cmp-1',
      kind: 'comparison',
      tilesetUrl: `${API}/v1/twin/site-1/comparisons/cmp-1/tiles/tileset.json`,
      boundingBox: { min: { x: 0, y: 0, z: 0 }, max: { x: 1, y: 2, z: 3 } },
      frame: { georeferenced: false, crs: null, reason: null, origin: { x: 0, y: 0, z: 0 } },
      attributes: ['rgb', 'distance'],
      comparison: { comparisonId: 'cmp-1', method: 'c2c', tolerance: 0.05, maxDistance: 1 },
    });
  });

  it('attributes: what the processing recorded, ["rgb"] for one from before', () => {
    const layers = layersOf(
      ['a', 'b', 'c'],
      [
        { ...candidate('a', 'cloud-a'), attributes: '["intensity","classification"]' },
        candidate('b', 'cloud-b'),
        { ...candidate('c', 'cloud-c'), attributes: '[]' },
      ],
      API,
    );
    expect(layers.map((layer) => layer.attributes)).toEqual([['intensity', 'classification'], ['rgb'], []]);
  });

  it('a frame: placed with its origin, local with the reason and any CRS declared, unknown (older rows) local', () => {
    const placed = JSON.stringify({ georeferenced: true, crs: 'EPSG:32632', origin: [691000, 5335000, 520], transform: [] });
    expect(layerFrame(placed)).toEqual({
      georeferenced: true,
      crs: 'EPSG:32632',
      reason: null,
      origin: { x: 691000, y: 5335000, z: 520 },
    });
    const unknown = JSON.stringify({ georeferenced: false, reason: 'unknownCoordinateSystem', crs: 'EPSG:31999' });
    expect(layerFrame(unknown)).toEqual({
      georeferenced: false,
      crs: 'EPSG:31999',
      reason: 'unknownCoordinateSystem',
      origin: { x: 0, y: 0, z: 0 },
    });
    expect(layerFrame(null)).toEqual({ georeferenced: false, crs: null, reason: null, origin: { x: 0, y: 0, z: 0 } });
  });
});
