import { useLocation } from '../../router.js';
import { ErrorNotice, PageTitle } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { cachedNode } from './node-cache.js';
import { NodeTable } from './node-table.js';
import { SearchForm } from './search-form.js';

const PAGE = 50;

/** Nodes found by name (GET /v1/nodes/search), in the whole tree or inside one node; each leads to its screen. */
export function SearchView() {
  const session = useSession();
  const { query } = useLocation();
  const text = query.get('q') ?? '';
  const underId = query.get('under') ?? undefined;
  const under = useResource(async () => (underId ? cachedNode(session, underId) : undefined), [underId]);
  return (
    <section class="search">
      <PageTitle>{text ? `Search: ${text}` : 'Search'}</PageTitle>
      <SearchForm
        key={`${text}/${underId}`}
        initial={text}
        under={under.data ? { id: under.data.id, name: under.data.name } : undefined}
        onlyUnder={underId !== undefined}
      />
      {/* An empty search would list everything: nothing is asked until there is a name to look for. */}
      {text ? (
        <SearchResults text={text} underId={underId} where={under.data ? ` inside ${under.data.name}` : ''} />
      ) : (
        <p>Type part of a name to find the divisions, sites, folders and data called like it.</p>
      )}
    </section>
  );
}

function SearchResults(props: { text: string; underId: string | undefined; where: string }) {
  const session = useSession();
  const { text, underId, where } = props;
  const results = usePagedList(
    (page) =>
      session.api.GET('/v1/nodes/search', {
        params: { query: { searchNameQuery: text, ...(underId ? { underNodeId: underId } : {}), ...page } },
      }),
    [text, underId],
    PAGE,
  );
  if (!results.items) return <LoadingOrError error={results.error} label="Searching…" />;
  return (
    <>
      <p role="status">
        {results.items.length === 0
          ? `Nothing is named like “${text}”${where}.`
          : `${results.items.length}${results.hasMore ? ' or more' : ''} found for “${text}”${where}.`}
      </p>
      {results.items.length > 0 && <NodeTable caption={`Found for ${text}`} nodes={results.items} />}
      <ErrorNotice error={results.error} />
      <ShowMore list={results} what="results" />
    </>
  );
}
