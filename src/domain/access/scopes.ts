/**
 * Layer 1 of the access layers: the complete scope list. Each operation requires exactly one
 * of these, declared as its OpenAPI security requirement.
 */
export const SCOPES = {
  'read:basic': 'Read the signed-in principal, its organization, roles and plugins',
  'read:user': 'Read users, groups and invitations',
  'write:user': 'Manage users, groups, memberships and invitations',
  'read:hierarchy': 'Read nodes, bundles, site files, twins and search results',
  'write:hierarchy': 'Create, change, move and delete nodes; upload and process data',
  'read:assetlibrary': 'Read asset library models and tags',
  'write:assetlibrary': 'Manage asset library models and tags',
  'download:assetlibrary': 'Get signed download links from asset library reads',
  'read:webhooks': "Read the organization's webhook endpoints and their delivery logs",
  'write:webhooks': 'Create, change, test and delete webhook endpoints; redeliver events',
} as const;

export type Scope = keyof typeof SCOPES;

/** Scopes renamed by the spec's normalization: accepted on input, stored under the new name. */
export const LEGACY_SCOPES: Record<string, Scope> = {
  'manage:user': 'write:user',
  'manage:hierarchy': 'write:hierarchy',
};

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** Normalizes a space-separated scope list; returns the unknown names separately. */
export function normalizeScopes(requested: Iterable<string>): { scopes: Scope[]; unknown: string[] } {
  const scopes = new Set<Scope>();
  const unknown: string[] = [];
  for (const raw of requested) {
    if (raw === '') continue;
    const name = LEGACY_SCOPES[raw] ?? raw;
    if (isScope(name)) scopes.add(name);
    else unknown.push(raw);
  }
  return { scopes: [...scopes], unknown };
}

export function parseScopeString(value: string): string[] {
  return value.split(/\s+/).filter(Boolean);
}
