import { Type } from '@sinclair/typebox';
import { TILE_ATTRIBUTES } from '../../../domain/processing/tile-attributes.js';
import { ContextIdParams } from './twin-value-schemas.js';

/** A comparison's distance beside the tile attributes (a set: the tiler may name it among them). */
const LAYER_ATTRIBUTES = [...new Set<string>([...TILE_ATTRIBUTES, 'distance'])] as (
  | 'distance'
  | (typeof TILE_ATTRIBUTES)[number]
)[];

// A layer's coordinates are the scan file's own (docs/twins.md, "Layers"): answered, never sent,
// so they carry no input bound.
const Point = Type.Object(
  { x: Type.Number(), y: Type.Number(), z: Type.Number() },
  { title: 'LayerPoint', description: "A point in twin coordinates: the scan file's own (grid units for a georeferenced layer)" },
);

export const LayerSchema = Type.Object(
  {
    bundleId: Type.String({ description: "The data bundle linked to the twin; a comparison's compared bundle" }),
    nodeId: Type.String({
      description:
        "The derivative node serving the tileset: the bundle's newest processed one; a comparison's id for a comparison",
    }),
    kind: Type.Union([Type.Literal('pointCloud'), Type.Literal('mesh'), Type.Literal('comparison')], {
      description:
        "What the tileset holds: points, a textured mesh (GLB tiles) processed from an OBJ, glTF, GLB or PLY with faces, or a comparison's compared points carrying their distance (docs/comparisons.md)",
    }),
    tilesetUrl: Type.String({ format: 'uri', description: 'Absolute; GET it with the bearer token, as a processing tilesetUrl' }),
    boundingBox: Type.Union(
      [
        Type.Object(
          { min: Point, max: Point },
          { description: "The points' (or the mesh's) axis-aligned extent in twin coordinates" },
        ),
        Type.Null(),
      ],
      { description: 'Null for a processing that did not record its extent (finished before regional migration 0016)' },
    ),
    frame: Type.Object(
      {
        georeferenced: Type.Boolean({ description: "True when the tileset's root transform places it on the globe" }),
        crs: Type.Union([Type.String(), Type.Null()], {
          description: 'The coordinate system the file declares ("EPSG:32632", "WKT", "PROJ"), placed or not; null when none',
        }),
        reason: Type.Union([Type.String(), Type.Null()], {
          description:
            'Why a layer stays in its local frame: noCoordinateSystem, unknownCoordinateSystem, unsupportedCoordinateSystem, outsideCoordinateSystem; null when georeferenced',
        }),
        origin: {
          ...Point,
          description:
            "The twin point of the tileset's (0, 0, 0): a tileset point t is the twin point origin + t (the cloud's centre when georeferenced, else 0, 0, 0)",
        },
      },
      { description: 'How the layer is placed. Without a CRS the local frame stays, and the layer says so' },
    ),
    attributes: Type.Array(Type.Union(LAYER_ATTRIBUTES.map((name) => Type.Literal(name))), {
      uniqueItems: true,
      description:
        'What the point tiles carry beside positions: rgb (COLOR_0), intensity (_INTENSITY, float 0..1), classification (_CLASSIFICATION, the LAS class byte), distance (_DISTANCE, float metres, -1 beyond maxDistance: a comparison). ["rgb"] for a processing from before they were recorded; [] for a mesh',
    }),
    comparison: Type.Union(
      [
        Type.Object(
          {
            comparisonId: Type.String(),
            method: Type.Union([Type.Literal('c2c'), Type.Literal('m3c2')]),
            tolerance: Type.Number({ description: 'Metres: the legend is centred on it' }),
            maxDistance: Type.Number({ description: 'Metres: points farther carry -1' }),
          },
          { title: 'TwinLayerComparison' },
        ),
        Type.Null(),
      ],
      { description: 'The comparison a layer of kind comparison shows; null for other kinds' },
    ),
  },
  { title: 'TwinLayer' },
);

export const LayerParams = Type.Object({
  contextId: { ...ContextIdParams.properties.contextId, description: 'A site id: layers belong to the live twin' },
  bundleId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'A processed data bundle of the site, or a comparison of the site (docs/comparisons.md)',
  }),
});
