/**
 * Blob keys name objects in every store alike: segments separated by `/`, each of letters,
 * digits, `.`, `_`, `-` and `=`, never `.` or `..`, so that a key is also a safe relative
 * path on the filesystem and needs no escaping in a URL. The callers build keys from ids.
 */
const SEGMENT = /^[A-Za-z0-9._=-]{1,200}$/;
export const MAX_KEY_LENGTH = 1024;

/** What is wrong with a key, or undefined when it is valid. */
export function blobKeyProblem(key: string): string | undefined {
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) return `a blob key has 1 to ${MAX_KEY_LENGTH} characters`;
  for (const segment of key.split('/')) {
    if (!SEGMENT.test(segment) || segment === '.' || segment === '..') {
      return `blob key "${key}" has an invalid segment "${segment}"`;
    }
  }
  return undefined;
}

/** A prefix is a key's beginning: it may end with `/` (a whole "folder") or part-way into a segment. */
export function blobPrefixProblem(prefix: string): string | undefined {
  if (prefix.length === 0) return 'a blob prefix is not empty (that would be every blob)';
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  return blobKeyProblem(trimmed);
}

/**
 * Where every byte of a node lives: a site file's, a bundle's inputs (its dbuPath), a site's
 * attachments, a derivative's files (the derivative takes its processing's id).
 */
export function nodeBlobPrefix(orgId: string, nodeId: string): string {
  return `orgs/${orgId}/nodes/${nodeId}/`;
}

export function assertBlobKey(key: string): void {
  const problem = blobKeyProblem(key);
  if (problem) throw new Error(problem);
}
