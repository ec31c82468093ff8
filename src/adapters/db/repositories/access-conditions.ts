import { sql } from 'kysely';

/** SQL conditions of the access checks, on a node aliased n: shared by the access query and the lists. */

/**
 * Memberships that reach a node: held by the principal or one of its groups, on the node or an
 * ancestor (an id in its path).
 */
export const reachingMemberships = (principalId: string) => sql<boolean>`
  m.principal_id IN (SELECT ${principalId} UNION ALL SELECT g.group_id FROM group_members g WHERE g.user_id = ${principalId})
  AND n.path LIKE '%/' || m.node_id || '/%'`;

/**
 * The least and greatest identity provider required on the node's path: equal when one provider
 * is required (however many nodes require it), null when none is. Restricted nodes are found by a
 * partial index per organization, so this costs an index probe while an organization has none.
 */
export const requiredProvider = (aggregate: 'min' | 'max') => sql`(
  SELECT ${sql.raw(aggregate)}(a.required_identity_provider) FROM nodes a
  WHERE a.org_id = n.org_id AND a.required_identity_provider IS NOT NULL AND n.path LIKE '%/' || a.id || '/%')`;

/**
 * Lists leave out what lies below a node that requires another identity provider than the
 * caller's: the same as browse shows (a restricted node appears in its parent's listing, its
 * contents do not).
 */
export const notBelowForeignRestriction = (identityProvider: string) => sql<boolean>`NOT EXISTS (
  SELECT 1 FROM nodes a WHERE a.org_id = n.org_id AND a.required_identity_provider IS NOT NULL
    AND a.required_identity_provider <> ${identityProvider} AND a.id <> n.id AND n.path LIKE '%/' || a.id || '/%')`;
