import { Type } from '@sinclair/typebox';
import { MAX_OBJECT_SIZE } from '../../../domain/uploads/upload-parts.js';
import { Name } from '../nodes/node-schemas.js';

/** Declared sizes: whole bytes, up to 5 TiB (S3's largest object). */
export const Size = Type.Integer({ minimum: 0, maximum: MAX_OBJECT_SIZE, description: 'Size of the file in bytes' });

export const Etag = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'The ETag the upload returned (quoted or bare): MD5 hex for one PUT, "<md5 of part md5s>-N" for N parts',
});

/** Where the client sends the bytes: one signed PUT, or one per part for large files. Never an uploadId field. */
export const UploadTargetFields = {
  uploadUrl: Type.Optional(Type.String({ description: 'Signed, expiring address for one PUT of the whole file' })),
  partSize: Type.Optional(Type.Integer({ description: 'Multipart: every part but the last has this size' })),
  parts: Type.Optional(
    Type.Array(Type.Object({ partNumber: Type.Integer(), size: Type.Integer(), uploadUrl: Type.String() }), {
      description: 'Multipart: PUT each part (in parallel if you like) to its address; each answer carries the part ETag',
    }),
  ),
  expiresAt: Type.String({ format: 'date-time', description: 'The addresses and the reservation end then' }),
};

export const FileName = Name;
