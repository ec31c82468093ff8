import { sql } from 'kysely';
import type { Dialect } from '../database.js';

/** SQL conditions of the access checks, on a node aliased n: shared by the access query and the lists. */

/** The principal and the groups it belongs to: whose memberships count for it. */
const principalAndGroups = (principalId: string) =>
  sql`SELECT ${principalId} UNION ALL SELECT g.group_id FROM group_members g WHERE g.user_id = ${principalId}`;

/**
 * Memberships that reach a node: held by the principal or one of its groups, on the node or an
 * ancestor (an id in its path). For lists, where the node varies row by row; the access query of
 * one node uses membershipsOnAncestors.
 */
const reachingMemberships = (principalId: string) => sql<boolean>`
  m.principal_id IN (${principalAndGroups(principalId)})
  AND n.path LIKE '%/' || m.node_id || '/%'`;

/** A membership reaching the node gives the principal `read` on it: the lists' access condition. */
export const readableBy = (principalId: string) => sql<boolean>`EXISTS (
  SELECT 1 FROM memberships m INNER JOIN roles r ON r.org_id = n.org_id AND r.id = m.role_id
  WHERE ${reachingMemberships(principalId)} AND r.permissions LIKE ${'%"read"%'})`;

/**
 * A CTE `ancestors(id)`: the ids on one node's path (the node and its ancestors), split from the
 * path once. SQLite splits it with json_each, backslashes (char 92) and quotes (34) escaped first.
 */
export const ancestorsOf = (dialect: Dialect, nodeId: string) =>
  dialect === 'postgres'
    ? sql`ancestors(id) AS MATERIALIZED (
        SELECT unnest(string_to_array(trim(both '/' from t.path), '/')) FROM nodes t WHERE t.id = ${nodeId})`
    : sql`ancestors(id) AS MATERIALIZED (
        SELECT j.value FROM nodes t, json_each('["' || replace(replace(replace(substr(t.path, 2, length(t.path) - 2),
          char(92), char(92, 92)), '"', char(92, 34)), '/', '","') || '"]') j
        WHERE t.id = ${nodeId})`;

/**
 * Memberships that reach the node of `ancestorsOf`: held by the principal or one of its groups, on
 * an id of the ancestors CTE. Found from the principal's side (its memberships and its groups', by
 * the principal index), each checked against the ancestor set: a probe where LIKE scanned the path.
 * On SQLite the unary + keeps the planner from probing every (ancestor, group) pair instead, which
 * costs depth x groups index probes however few memberships the groups hold.
 */
export const membershipsOnAncestors = (dialect: Dialect, principalId: string) => sql<boolean>`
  m.principal_id IN (${principalAndGroups(principalId)})
  AND ${dialect === 'postgres' ? sql`m.node_id` : sql`+m.node_id`} IN (SELECT id FROM ancestors)`;

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
