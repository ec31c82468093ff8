import { useEffect, useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { Link, PageTitle, Progress } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { flash, takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { Breadcrumbs } from '../nodes/breadcrumbs.js';
import { cachedNode, loadAncestors, readNode } from '../nodes/node-cache.js';
import { canWriteTree } from '../nodes/node-rights.js';
import {
  type Comparison,
  type ComparisonStats,
  comparisonsHref,
  deleteComparison,
  describeComparisonRefusal,
  formatCount,
  formatMetres,
  formatShare,
  isUnderway,
  METHOD_WORDS,
  POLL_MS,
  readComparison,
  showComparisonInTwin,
} from './comparison-api.js';
import { DistanceHistogram } from './distance-histogram.js';
import { twinHref } from './twin-api.js';
import './twin.css';

/** The figures in the order shown, each with its words and how it is written. */
const FIGURES: { key: keyof ComparisonStats; label: string; format: (value: number | null) => string }[] = [
  { key: 'comparedPoints', label: 'Compared points', format: (value) => formatCount(value ?? 0) },
  { key: 'beyondMaxDistance', label: 'Beyond the maximum distance', format: (value) => formatCount(value ?? 0) },
  { key: 'mean', label: 'Mean', format: formatMetres },
  { key: 'median', label: 'Median', format: formatMetres },
  { key: 'p95', label: '95th percentile', format: formatMetres },
  { key: 'p99', label: '99th percentile', format: formatMetres },
  { key: 'max', label: 'Maximum', format: formatMetres },
  { key: 'rms', label: 'Root mean square', format: formatMetres },
  { key: 'withinTolerance', label: 'Within the tolerance', format: formatShare },
];

/**
 * A comparison's page (/twins/{siteId}/comparisons/{comparisonId}): what it compares, its state
 * followed while a worker computes it, then its figures, the histogram, the CSV, the way into the
 * twin as a heat map, and the delete.
 */
export function ComparisonView(props: { siteId: string; comparisonId: string }) {
  const session = useSession();
  const { siteId, comparisonId } = props;
  const [notice] = useState(takeFlash);
  const [deleting, setDeleting] = useState(false);
  const [showError, setShowError] = useState<unknown>();
  const [showing, setShowing] = useState(false);
  const site = useResource(async () => {
    const node = await readNode(session, siteId);
    return { node, ancestors: await loadAncestors(session, node) };
  }, [siteId]);
  const comparison = useResource(() => readComparison(session, siteId, comparisonId), [siteId, comparisonId]);
  const underway = comparison.data ? isUnderway(comparison.data) : false;
  useEffect(() => {
    if (!underway) return;
    const timer = setInterval(comparison.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [underway]);

  if (!site.data || !comparison.data) return <LoadingOrError error={site.error ?? comparison.error} />;
  const { node, ancestors } = site.data;
  const it = comparison.data;
  const permissions = node.permissions ?? [];
  const mayShow = canWriteTree(session) && permissions.includes('edit') && it.state === 'ready';
  const mayDelete = canWriteTree(session) && permissions.includes('process');

  async function show() {
    setShowing(true);
    setShowError(undefined);
    try {
      await showComparisonInTwin(session, siteId, comparisonId);
      navigate(twinHref(siteId));
    } catch (refusal) {
      setShowError(new Error(describeComparisonRefusal(refusal)));
      setShowing(false);
    }
  }

  return (
    <section class="comparison">
      <Breadcrumbs ancestors={[...ancestors, node]} node={{ ...node, name: it.name, type: 'twin' }} />
      <PageTitle
        actions={
          <>
            {mayShow && (
              <button type="button" disabled={showing} onClick={show}>
                Show in the twin
              </button>
            )}
            {mayDelete && (
              <button type="button" class="danger" onClick={() => setDeleting(true)}>
                Delete
              </button>
            )}
          </>
        }
      >
        {it.name}
      </PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      <RefusalNotice error={showError} />
      <p>
        <Link href={comparisonsHref(siteId)}>{`All comparisons of ${node.name}`}</Link>
      </p>
      <ComparisonFacts comparison={it} />
      <ComparisonState comparison={it} />
      {it.state === 'ready' && it.stats && (
        <section aria-labelledby="figures-heading" class="comparison-figures">
          <h2 id="figures-heading">Figures</h2>
          <p class="muted">
            Over the compared points within {formatMetres(it.maxDistance)} of the reference; the points beyond are counted apart.
          </p>
          <dl class="figures">
            {FIGURES.map((figure) => (
              <div key={figure.key}>
                <dt>{figure.label}</dt>
                <dd data-figure={figure.key}>{figure.format((it.stats as ComparisonStats)[figure.key])}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      {it.state === 'ready' && it.histogram && (
        <section aria-labelledby="histogram-heading" class="comparison-histogram">
          <h2 id="histogram-heading">Histogram</h2>
          <DistanceHistogram histogram={it.histogram} tolerance={it.tolerance} maxDistance={it.maxDistance} />
        </section>
      )}
      {it.state === 'ready' && it.downloadUrl && (
        <p>
          <a href={it.downloadUrl} download={`${it.name}.csv`}>
            Download the distances (CSV)
          </a>{' '}
          <span class="muted">x, y, z and distance of every compared point; the link is valid for an hour.</span>
        </p>
      )}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${it.name}?`}
          confirm="Delete comparison"
          danger
          onClose={() => setDeleting(false)}
          action={async () => {
            await deleteComparison(session, siteId, comparisonId);
            flash(`${it.name} is deleted.`);
            navigate(comparisonsHref(siteId));
          }}
        >
          <p>Its figures, histogram, CSV and heat map go, and the twin stops showing it. The two scans stay.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** What the comparison compares and how. */
function ComparisonFacts(props: { comparison: Comparison }) {
  const session = useSession();
  const it = props.comparison;
  const names = useResource(
    () => Promise.all([it.referenceBundleId, it.comparedBundleId].map((id) => cachedNode(session, id).then((node) => node.name))),
    [it.referenceBundleId, it.comparedBundleId],
  );
  const [reference, compared] = names.data ?? ['Data bundle', 'Data bundle'];
  return (
    <dl class="facts comparison-facts">
      <div>
        <dt>Reference scan</dt>
        <dd>
          <Link href={`/nodes/${it.referenceBundleId}`}>{reference}</Link>
        </dd>
      </div>
      <div>
        <dt>Compared scan</dt>
        <dd>
          <Link href={`/nodes/${it.comparedBundleId}`}>{compared}</Link>
        </dd>
      </div>
      <div>
        <dt>Method</dt>
        <dd>{METHOD_WORDS[it.method]}</dd>
      </div>
      <div>
        <dt>Maximum distance</dt>
        <dd>{formatMetres(it.maxDistance)}</dd>
      </div>
      <div>
        <dt>Tolerance</dt>
        <dd>{formatMetres(it.tolerance)}</dd>
      </div>
      <div>
        <dt>Cost</dt>
        <dd>{it.cost} credits</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <time dateTime={it.createdAt}>{new Date(it.createdAt).toLocaleString()}</time>
        </dd>
      </div>
    </dl>
  );
}

/** Where it stands, in words (announced as it changes), with the job's progress while it runs. */
function ComparisonState(props: { comparison: Comparison }) {
  const it = props.comparison;
  return (
    <div class="comparison-state">
      <p role="status" class="state-words">
        {it.state === 'queued' && 'Waiting for a worker…'}
        {it.state === 'running' && `Comparing: ${Math.floor((it.progress ?? 0) * 100)}% done.`}
        {it.state === 'ready' && 'Ready.'}
        {it.state === 'failed' && 'The comparison failed.'}
      </p>
      {it.state === 'running' && it.progress !== null && <Progress label="Comparing" value={it.progress} max={1} />}
      {it.state === 'queued' && <progress class="working" aria-label="Comparison waiting" />}
      {it.state === 'failed' && (
        <p class="notice error" role="alert">
          Why: {it.failureReason ?? 'the worker gave no reason.'}
        </p>
      )}
    </div>
  );
}
