import type { LibraryTagRow } from '../records/regional.js';

/** The rules of asset library tags (docs/design/asset-library.md#tags, docs/asset-library.md). */

/** A tag with the number of models that carry it, as reads answer it. */
export type LibraryTagWithCount = LibraryTagRow & { model_count: number };

/** A tag's name: 1 to 64 characters (code points), stored as given, never trimmed. */
export const TAG_NAME_MAX_LENGTH = 64;

/** A tag's colour: `#` and six hexadecimal digits, stored as given. */
export const TAG_COLOR_PATTERN = '^#[0-9a-fA-F]{6}$';

/** At most this many tags on one model (checked when models can be tagged). */
export const MAX_TAGS_PER_MODEL = 50;

/** The key names are compared by: unique in the organization, and the list's order. */
export function tagNameKey(name: string): string {
  return name.toLowerCase();
}
