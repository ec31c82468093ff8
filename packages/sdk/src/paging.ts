import { type ApiResult, ok } from './client.js';

/** The largest page the platform answers (a larger limit is clamped to it). */
export const MAX_PAGE_SIZE = 500;

/** Where the next page starts: the query fields of an offset/limit (and cursor) list. */
export interface PageRequest {
  limit: number;
  /** Items to skip. Absent when a cursor continues the list. */
  offset?: number;
  /** The Next-Cursor of the page before (on the lists that have `cursor`). */
  cursor?: string;
}

/** A page as lists answer it: an array, or `{ items, total }`. */
type PageData<Item> = readonly Item[] | { items: readonly Item[]; total?: number };

type ItemOf<Data> = Data extends readonly (infer Item)[] ? Item : Data extends { items: readonly (infer Item)[] } ? Item : never;

export interface PaginateOptions {
  /** Items per request (default 100, at most 500). */
  pageSize?: number;
  /** Stop after this many items. */
  max?: number;
}

/**
 * Every item of a list operation, page after page:
 *
 *   for await (const node of paginate((page) =>
 *     api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId }, query: page } }))) ...
 *
 * `page` is the query of the next page (limit, and offset or cursor); the second argument is the
 * 1-based page number, for the page-numbered lists (listLayouts, searchBusinessObjects:
 * `query: { limit: page.limit, page: number }`). A page that answers a
 * Next-Cursor header is continued by its cursor (stable while items are added), otherwise by
 * offset; a page shorter than the limit, or one that reaches `total`, is the last.
 */
export async function* paginate<Data extends PageData<unknown>>(
  fetchPage: (page: PageRequest, pageNumber: number) => Promise<ApiResult<Data>>,
  options: PaginateOptions = {},
): AsyncGenerator<ItemOf<Data>, void, undefined> {
  const limit = Math.min(Math.max(1, Math.floor(options.pageSize ?? 100)), MAX_PAGE_SIZE);
  const max = options.max ?? Number.POSITIVE_INFINITY;
  let offset = 0;
  let cursor: string | undefined;
  let yielded = 0;
  for (let page = 1; ; page += 1) {
    const request: PageRequest = cursor === undefined ? { limit, offset } : { limit, cursor };
    const result = await fetchPage(request, page);
    const data = (await ok(result)) as PageData<ItemOf<Data>>;
    const items = Array.isArray(data) ? data : (data as { items: readonly ItemOf<Data>[] }).items;
    for (const item of items) {
      if (yielded >= max) return;
      yield item;
      yielded += 1;
    }
    // A list that answered more than the limit does not page (it answered everything): stop.
    if (yielded >= max || items.length === 0 || items.length !== limit) return;
    offset += items.length;
    const total = Array.isArray(data) ? undefined : (data as { total?: number }).total;
    if (total !== undefined && offset >= total) return;
    cursor = result.response.headers.get('next-cursor') ?? undefined;
  }
}

/** Every item of a list in one array (small lists; prefer paginate for long ones). */
export async function collect<Item>(items: AsyncIterable<Item>): Promise<Item[]> {
  const all: Item[] = [];
  for await (const item of items) all.push(item);
  return all;
}
