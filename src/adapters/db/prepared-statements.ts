/**
 * PostgreSQL statements worth preparing: the hot reads, each parsed and planned once per
 * connection instead of on every call (the access check spent about 0.28 of its 0.8 ms planning).
 * A repository registers the text of a query it compiled once (`precompiled`); the pool's client
 * (postgres-pool.ts) then sends that text as a named statement. Only registered texts are
 * prepared: a server keeps every prepared statement for the life of its connection, so texts that
 * vary (IN lists, batch inserts) must never become one each.
 *
 * A registered text must name its columns, never `*`: a prepared `SELECT *` fails with "cached
 * plan must not change result type" once a newer copy's migration adds a column.
 */
const names = new Map<string, string>();

/** Marks a query text as one to prepare; the same text always gets the same name. */
export function registerPrepared(text: string): void {
  if (!names.has(text)) names.set(text, `rdp_${names.size + 1}`);
}

/** The statement name of a registered text, or undefined for a text sent unprepared. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}
