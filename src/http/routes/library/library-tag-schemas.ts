import { type Static, Type } from '@sinclair/typebox';
import type { LibraryTagWithCount } from '../../../domain/library/tags.js';
import { TAG_COLOR_PATTERN, TAG_NAME_MAX_LENGTH } from '../../../domain/library/tags.js';

// NUL characters are refused for every JSON body by http/plugins/json-body.ts.
const TagName = Type.String({
  minLength: 1,
  maxLength: TAG_NAME_MAX_LENGTH,
  description: `1 to ${TAG_NAME_MAX_LENGTH} characters (code points), stored as given (never trimmed); unique in the organization without regard to case`,
});

const TagColor = Type.Union([Type.String({ pattern: TAG_COLOR_PATTERN }), Type.Null()], {
  description: 'A colour as # and six hexadecimal digits (stored as given), or null for none',
});

export const LibraryTagSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    color: Type.Union([Type.String(), Type.Null()]),
    modelCount: Type.Integer({ minimum: 0, description: 'How many models of the library carry the tag' }),
    createdBy: Type.String({ description: 'The principal that created it' }),
    updatedBy: Type.String({ description: 'The principal that changed it last' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'LibraryTag', title: 'LibraryTag' },
);
export type LibraryTagBody = Static<typeof LibraryTagSchema>;

export const CreateLibraryTagBody = Type.Object(
  { name: TagName, color: Type.Optional(TagColor) },
  { additionalProperties: false },
);

export const UpdateLibraryTagBody = Type.Object(
  { name: Type.Optional(TagName), color: Type.Optional(TagColor) },
  { additionalProperties: false, minProperties: 1 },
);

export const LibraryTagIdParams = Type.Object({ tagId: Type.String({ minLength: 1, maxLength: 64 }) });

export function toLibraryTagBody(row: LibraryTagWithCount): LibraryTagBody {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    modelCount: row.model_count,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
