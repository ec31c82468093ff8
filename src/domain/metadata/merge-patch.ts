/**
 * JSON Merge Patch (RFC 7396): a patch object merges into the target key by key, `null` removes a
 * key, and anything that is not an object (a string, a number, an array) replaces the target
 * whole. No I/O. Objects are built with Object.fromEntries, so a key such as "__proto__" stays an
 * ordinary key and never reaches a prototype.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The target with the patch applied (RFC 7396 section 2); neither argument is changed. */
export function mergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result = new Map<string, JsonValue>(isJsonObject(target) ? Object.entries(target) : []);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) result.delete(key);
    else result.set(key, mergePatch(result.get(key), value));
  }
  return Object.fromEntries(result);
}

/**
 * The patch that undoes `patch` on `document`: mergePatch(mergePatch(document, patch), reverse)
 * equals `document`. Merge patches cannot carry a null value, so `document` must hold none
 * (metadata never does). Useful to record what a change replaced.
 */
export function reverseMergePatch(document: JsonObject, patch: JsonObject): JsonObject {
  const reverse = new Map<string, JsonValue>();
  for (const [key, value] of Object.entries(patch)) {
    const before = Object.hasOwn(document, key) ? document[key] : undefined;
    if (before === undefined) {
      // The patch added the key (or removed a key that was not there): take it away again.
      if (value !== null) reverse.set(key, null);
    } else if (isJsonObject(before) && isJsonObject(value)) {
      reverse.set(key, reverseMergePatch(before, value));
    } else {
      // Replaced or removed: put the old value back whole. Where it was an object, the key now
      // holds nothing or a non-object, and a merge into either starts from {}: it rebuilds it.
      reverse.set(key, before);
    }
  }
  return Object.fromEntries(reverse);
}
