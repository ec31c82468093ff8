import { Type } from '@sinclair/typebox';
import { MODEL_FORMATS } from '../../../domain/library/model-formats.js';
import { MODEL_DESCRIPTION_MAX_LENGTH } from '../../../domain/library/models.js';
import { MAX_TAGS_PER_MODEL } from '../../../domain/library/tags.js';
import { Name } from '../nodes/node-schemas.js';
import { Paging } from '../paging.js';
import { Etag, FileName, Size, UploadTargetFields } from '../uploads/upload-schemas.js';

const TagId = Type.String({ minLength: 1, maxLength: 64 });

const Description = Type.String({
  maxLength: MODEL_DESCRIPTION_MAX_LENGTH,
  description: `Up to ${MODEL_DESCRIPTION_MAX_LENGTH} characters (code points); empty when not given`,
});

// Duplicates collapse; more than MAX_TAGS_PER_MODEL distinct ids is refused by the service. The
// array's own bound only keeps bodies small.
const TagIds = Type.Array(TagId, {
  maxItems: 10 * MAX_TAGS_PER_MODEL,
  description: `Ids of the organization's tags, at most ${MAX_TAGS_PER_MODEL} distinct (duplicates collapse); on PATCH the new set`,
});

const DownloadLink = Type.Object({
  url: Type.String({ description: 'Signed address: a GET answers the exact bytes until expiresAt' }),
  expiresAt: Type.String({ format: 'date-time' }),
});

const LibraryModelFields = {
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  status: Type.Union([Type.Literal('pendingUpload'), Type.Literal('processing'), Type.Literal('ready'), Type.Literal('failed')]),
  file: Type.Object({
    name: Type.String({ description: 'The file name given at creation (never used to tell the format)' }),
    size: Type.Integer({ description: 'Bytes: declared until finalize, then stored' }),
    format: Type.Union([Type.Union(MODEL_FORMATS.map((format) => Type.Literal(format))), Type.Null()], {
      description: 'Read from the bytes at finalize; null before',
    }),
    etag: Type.Union([Type.String(), Type.Null()]),
  }),
  previewable: Type.Boolean({ description: 'Whether a GLB preview and a thumbnail are (or are being) made' }),
  previewUnavailableReason: Type.Union([
    Type.Literal('OriginalTooLarge'),
    Type.Literal('UnsupportedFormat'),
    Type.Literal('Processing'),
    Type.Null(),
  ]),
  thumbnailUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'GET /v1/asset-library/models/{modelId}/thumbnail once the worker made one; null before',
  }),
  failureReason: Type.Optional(Type.String({ description: 'Why the preview failed (status failed)' })),
  tags: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), name: Type.String(), color: Type.Union([Type.String(), Type.Null()]) }), {
      description: 'With includeTags=true, and on create and PATCH: in tag name order',
    }),
  ),
  downloadLinks: Type.Optional(
    Type.Union([Type.Object({ original: DownloadLink, preview: Type.Union([DownloadLink, Type.Null()]) }), Type.Null()], {
      description: 'With includeDownloadLinks=true (scope download:assetlibrary); null while the upload is open',
    }),
  ),
  createdBy: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

export const LibraryModelSchema = Type.Object(LibraryModelFields, { $id: 'LibraryModel', title: 'LibraryModel' });

export const CreatedLibraryModel = Type.Object({ ...LibraryModelFields, ...UploadTargetFields }, { additionalProperties: false });

export const CreateLibraryModelBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    fileName: FileName,
    size: Size,
    tagIds: Type.Optional(TagIds),
  },
  { additionalProperties: false },
);

export const UpdateLibraryModelBody = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), tagIds: Type.Optional(TagIds) },
  { additionalProperties: false, minProperties: 1 },
);

export const FinalizeLibraryModelBody = Type.Object({ etag: Type.Optional(Etag) }, { additionalProperties: false });

export const LibraryModelIdParams = Type.Object({ modelId: Type.String({ minLength: 1, maxLength: 64 }) });

const Includes = {
  includeTags: Type.Boolean({ default: false, description: "Add the model's tags" }),
  includeDownloadLinks: Type.Boolean({
    default: false,
    description: 'Add signed download links of the original and the preview: needs the scope download:assetlibrary',
  }),
};

export const GetLibraryModelQuery = Type.Object(Includes, { additionalProperties: false });

export const ListLibraryModelsQuery = Type.Object(
  {
    ...Paging,
    ...Includes,
    tagId: Type.Optional(
      Type.Array(TagId, {
        maxItems: MAX_TAGS_PER_MODEL,
        description: 'Repeat to narrow: only the models that carry every tag given (tagId=a&tagId=b)',
      }),
    ),
  },
  { additionalProperties: false },
);
