import { useEffect, useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { Link, PageTitle } from '../../ui/components.js';
import { flash, takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { Breadcrumbs } from '../nodes/breadcrumbs.js';
import { loadAncestors, readNode } from '../nodes/node-cache.js';
import { canWriteTree } from '../nodes/node-rights.js';
import {
  type Comparison,
  comparisonHref,
  formatProgress,
  isUnderway,
  METHOD_WORDS,
  POLL_MS,
  STATE_WORDS,
} from './comparison-api.js';
import { StartComparisonDialog } from './start-comparison-dialog.js';
import { twinHref } from './twin-api.js';
import './twin.css';

/**
 * A site's comparisons (/twins/{siteId}/comparisons), oldest first as the API lists them, page by
 * page; their states and progress followed while any is under way. A person who may process on
 * the site starts one here.
 */
export function ComparisonsView(props: { siteId: string }) {
  const session = useSession();
  const { siteId } = props;
  const [notice] = useState(takeFlash);
  const [starting, setStarting] = useState(false);
  const site = useResource(async () => {
    const node = await readNode(session, siteId);
    return { node, ancestors: await loadAncestors(session, node) };
  }, [siteId]);
  const comparisons = usePagedList<Comparison>(
    (page) => session.api.GET('/v1/twin/{contextId}/comparisons', { params: { path: { contextId: siteId }, query: page } }),
    [siteId],
  );
  const watching = comparisons.items?.some(isUnderway) ?? false;
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(comparisons.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [watching]);

  if (!site.data) return <LoadingOrError error={site.error} />;
  const { node, ancestors } = site.data;
  const mayStart = canWriteTree(session) && (node.permissions?.includes('process') ?? false);

  return (
    <section class="comparisons">
      <Breadcrumbs ancestors={[...ancestors, node]} node={{ ...node, name: 'Comparisons', type: 'twin' }} />
      <PageTitle
        actions={
          mayStart && (
            <button type="button" onClick={() => setStarting(true)}>
              New comparison
            </button>
          )
        }
      >
        {`Comparisons of ${node.name}`}
      </PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      <p>
        How far each point of a scan lies from an earlier scan of the site: figures, a histogram, the distances as a CSV and as a
        heat map in the <Link href={twinHref(siteId)}>twin</Link>.
      </p>
      {!comparisons.items ? (
        <LoadingOrError error={comparisons.error} />
      ) : comparisons.items.length === 0 ? (
        <p>No comparison yet.</p>
      ) : (
        <table class="comparison-list">
          <caption class="visually-hidden">Comparisons of {node.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Method</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {comparisons.items.map((comparison) => (
              <tr key={comparison.id}>
                <td>
                  <Link href={comparisonHref(siteId, comparison.id)}>{comparison.name}</Link>
                </td>
                <td>{METHOD_WORDS[comparison.method]}</td>
                <td>{STATE_WORDS[comparison.state]}</td>
                <td>{formatProgress(comparison)}</td>
                <td>
                  <time dateTime={comparison.createdAt}>{new Date(comparison.createdAt).toLocaleString()}</time>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ShowMore list={comparisons} what="comparisons" />
      {starting && (
        <StartComparisonDialog
          siteId={siteId}
          onStarted={(comparison) => {
            flash(`${comparison.name} is started: a worker computes it.`);
            navigate(comparisonHref(siteId, comparison.id));
          }}
          onClose={() => setStarting(false)}
        />
      )}
    </section>
  );
}
