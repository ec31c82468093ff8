import type { PagedList } from './use-paged-list.js';

/** "Show more" under a list read page by page; says how many are shown. */
export function ShowMore(props: { list: PagedList<unknown>; what: string }) {
  const { list } = props;
  if (!list.hasMore) return null;
  return (
    <p class="show-more">
      <span>
        {list.items?.length ?? 0} {props.what} shown.
      </span>{' '}
      <button type="button" class="quiet" disabled={list.loading} onClick={list.showMore}>
        {list.loading ? 'Loading…' : 'Show more'}
      </button>
    </p>
  );
}
