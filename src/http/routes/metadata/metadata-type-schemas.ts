import { type Static, Type } from '@sinclair/typebox';
import {
  definitionOf,
  MAX_PROPERTIES,
  METADATA_TYPE_LIMITS,
  OBJECT_KINDS,
  PROPERTY_TYPES,
} from '../../../domain/metadata/metadata-types.js';
import type { MetadataTypeRow } from '../../../domain/records/regional.js';

const { nameLength, unitLength, choices, choiceLength, sections, propertiesPerSection } = METADATA_TYPE_LIMITS;

/**
 * The largest body a metadata type write takes: a type may hold up to 10,000 properties, more
 * than the 64 KiB every other JSON body gets (RDP_JSON_BODY_LIMIT_BYTES, when that is larger).
 */
export const METADATA_TYPE_BODY_LIMIT = 1024 * 1024;

// NUL characters are refused for every JSON body by http/plugins/json-body.ts.
const Text = (description: string, maxLength: number = nameLength) => Type.String({ minLength: 1, maxLength, description });

export const MetadataTypeName = Text(
  `1 to ${nameLength} characters (code points), stored as given (never trimmed); unique in the organization without regard to case`,
);

const ObjectKind = Type.Union(
  OBJECT_KINDS.map((kind) => Type.Literal(kind)),
  { description: 'A kind of twin object' },
);

const AppliesTo = Type.Array(ObjectKind, {
  minItems: 1,
  maxItems: OBJECT_KINDS.length,
  uniqueItems: true,
  description: 'The kinds of object the type may be given to, each once',
});

const PropertyType = Type.Union(
  PROPERTY_TYPES.map((type) => Type.Literal(type)),
  {
    description:
      'number (finite), shortText (at most 255 characters), longText (at most 10,000), boolean, attachment ({_p3d_type: "urn:primitive:obj:attachment", id, name}), link ({_p3d_type: "urn:primitive:obj:external-link", url, text}), choice (one of choices)',
  },
);

const Property = Type.Object(
  {
    section: Text(`The section the property is shown in, 1 to ${nameLength} characters`),
    name: Text(`1 to ${nameLength} characters; unique within its section`),
    type: PropertyType,
    unit: Type.Optional(Text(`Only on a number property: its unit, 1 to ${unitLength} characters`, unitLength)),
    choices: Type.Optional(
      Type.Array(Text(`1 to ${choiceLength} characters`, choiceLength), {
        minItems: 1,
        maxItems: choices,
        uniqueItems: true,
        description: `Required on a choice property, and only there: the values it may take, 1 to ${choices}, each once`,
      }),
    ),
    required: Type.Boolean({ description: 'Objects of the type must hold a value for it (checked on each metadata change)' }),
  },
  { additionalProperties: false, title: 'MetadataProperty' },
);

const Properties = Type.Array(Property, {
  maxItems: MAX_PROPERTIES,
  description: `At most ${sections} sections (in the order of their first property) of at most ${propertiesPerSection} properties each`,
});

export const MetadataTypeSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    appliesTo: Type.Array(ObjectKind),
    properties: Type.Array(Property),
    createdBy: Type.String({ description: 'The principal that created it' }),
    updatedBy: Type.String({ description: 'The principal that changed it last' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'MetadataType', title: 'MetadataType' },
);
export type MetadataTypeBody = Static<typeof MetadataTypeSchema>;

export const CreateMetadataTypeBody = Type.Object(
  { name: MetadataTypeName, appliesTo: AppliesTo, properties: Properties },
  { additionalProperties: false },
);

export const UpdateMetadataTypeBody = Type.Object(
  { name: Type.Optional(MetadataTypeName), appliesTo: Type.Optional(AppliesTo), properties: Type.Optional(Properties) },
  { additionalProperties: false, minProperties: 1 },
);

export const MetadataTypeIdParams = Type.Object({ metadataTypeId: Type.String({ minLength: 1, maxLength: 64 }) });

export function toMetadataTypeBody(row: MetadataTypeRow): MetadataTypeBody {
  const { name, appliesTo, properties } = definitionOf(row);
  return {
    id: row.id,
    name,
    appliesTo,
    properties,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
