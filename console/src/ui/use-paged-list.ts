import { type ApiResult, ok, type PageRequest } from '@reality-data-platform/sdk/browser';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface PagedList<Item> {
  items: Item[] | undefined;
  error: unknown;
  loading: boolean;
  /** Another page is there to show ("Show more"). */
  hasMore: boolean;
  showMore: () => void;
  /** From the first page again (after a change), keeping the items shown meanwhile. */
  reload: () => void;
}

/**
 * A list read page by page as the person asks for more: the first page when `keys` change, the
 * next on showMore(), continued by the Next-Cursor header where the list answers one (stable
 * while items are added), else by offset. A page shorter than the limit is the last.
 * An answer that arrives after the keys changed or a reload is dropped.
 */
export function usePagedList<Item>(
  fetchPage: (page: PageRequest) => Promise<ApiResult<Item[]>>,
  keys: unknown[],
  limit = 100,
): PagedList<Item> {
  const [state, setState] = useState<{ items?: Item[]; next?: PageRequest; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const generation = useRef(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  const load = useCallback(
    async (page: PageRequest, previous: Item[] | undefined, options: { fresh: boolean; clear?: boolean }) => {
      const mine = options.fresh ? ++generation.current : generation.current;
      setState((current) => ({ ...current, items: options.clear ? undefined : current.items, loading: true, error: undefined }));
      try {
        const result = await fetchRef.current(page);
        const items = await ok(result);
        if (mine !== generation.current) return;
        const offset = (previous?.length ?? 0) + items.length;
        const cursor = result.response.headers.get('next-cursor') ?? undefined;
        const next = items.length < limit ? undefined : cursor ? { limit, cursor } : { limit, offset };
        setState({ items: [...(previous ?? []), ...items], next, loading: false });
      } catch (error) {
        if (mine === generation.current) setState((current) => ({ ...current, error, loading: false }));
      }
    },
    [limit],
  );

  const keyText = JSON.stringify(keys);
  useEffect(() => {
    void load({ limit, offset: 0 }, undefined, { fresh: true, clear: true });
  }, [keyText]);

  return {
    items: state.items,
    error: state.error,
    loading: state.loading,
    hasMore: state.next !== undefined,
    showMore: () => {
      if (state.next && !state.loading) void load(state.next, state.items, { fresh: false });
    },
    reload: () => void load({ limit, offset: 0 }, undefined, { fresh: true }),
  };
}
