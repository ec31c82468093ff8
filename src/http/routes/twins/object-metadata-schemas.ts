import { type Static, Type } from '@sinclair/typebox';
import { OBJECT_KINDS } from '../../../domain/metadata/metadata-types.js';
import {
  ATTACHMENT_VALUE_TYPE,
  METADATA_VALUE_LIMITS as LIMITS,
  LINK_VALUE_TYPE,
} from '../../../domain/metadata/metadata-values.js';
import type { ObjectMetadataView } from '../../../services/twins/object-metadata-service.js';
import { ContextIdParams, ObjectId } from './twin-value-schemas.js';

/** A metadata patch may be larger than other JSON bodies: the sections it sets reach 256 KiB, plus the removals. */
export const METADATA_PATCH_BODY_LIMIT = 512 * 1024;

/** The media types a metadata PATCH takes: JSON Merge Patch's own (RFC 7396) and plain JSON. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

const AttachmentValue = Type.Object(
  {
    _p3d_type: Type.Literal(ATTACHMENT_VALUE_TYPE),
    id: Type.String({ minLength: 1, maxLength: LIMITS.attachmentId }),
    name: Type.String({ minLength: 1, maxLength: LIMITS.attachmentName }),
  },
  { additionalProperties: false, title: 'AttachmentValue', description: 'An attachment finalized on the same site' },
);

const LinkValue = Type.Object(
  {
    _p3d_type: Type.Literal(LINK_VALUE_TYPE),
    url: Type.String({ minLength: 1, maxLength: LIMITS.linkUrl, description: 'http or https' }),
    text: Type.String({ maxLength: LIMITS.linkText }),
  },
  { additionalProperties: false, title: 'LinkValue' },
);

export const MetadataValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), AttachmentValue, LinkValue], {
  description: `By the property's type: number, shortText (≤ ${LIMITS.shortText}), longText (≤ ${LIMITS.longText}), boolean, choice (one of the choices), attachment, link`,
});

export const MetadataSections = Type.Record(Type.String(), Type.Record(Type.String(), MetadataValue), {
  description:
    '{"<section>": {"<property>": value}}, as the metadata type names them, or free sections when the object has no type',
});

export const ObjectMetadataSchema = Type.Object(
  {
    objectId: Type.String(),
    objectType: Type.Union(OBJECT_KINDS.map((kind) => Type.Literal(kind))),
    metadataTypeId: Type.Union([Type.String(), Type.Null()]),
    sections: MetadataSections,
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'ObjectMetadata', title: 'ObjectMetadata' },
);

// Sections and values are checked by the domain against the object's metadata type, so that a
// failure names `body.sections.<section>.<property>` and says what the property takes.
export const MetadataPatchBody = Type.Object(
  {
    sections: Type.Record(
      Type.String(),
      Type.Unknown({
        description:
          'An object of properties merged into the section (a property null is removed), or null to remove the whole section',
      }),
      { description: 'JSON Merge Patch (RFC 7396) of the sections' },
    ),
  },
  { additionalProperties: false },
);

export const ObjectMetadataParams = Type.Object({ ...ContextIdParams.properties, objectId: ObjectId });
export const AssetMetadataParams = Type.Object({ ...ContextIdParams.properties, assetId: ObjectId });

export function toObjectMetadataBody(metadata: ObjectMetadataView): Static<typeof ObjectMetadataSchema> {
  return metadata;
}
