import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ErrorNotice, Link, Progress } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import type { NodeDetail } from '../nodes/node-kinds.js';
import { ShowInTwin } from '../twin/show-in-twin.js';
import { type Bundle, describeStartRefusal, duration, isUnderway, type Processing } from './processing-words.js';

/**
 * Where a processing stands, in words (announced as it changes): waiting, running for how long,
 * done with links to what it made (and, for an editor of its site, the way into the site's twin),
 * or failed with the reason the worker gave.
 */
export function ProcessingView(props: { processing: Processing; outputs: Bundle['components']; bundle?: NodeDetail }) {
  const { processing } = props;
  const output = props.outputs?.find((component) => component.role === 'output' && component.id === processing.derivativeId);
  return (
    <div class="processing">
      <p role="status" class="processing-state">
        {processing.state === 'queued' && 'Waiting for a processing worker…'}
        {processing.state === 'running' &&
          `Processing: ${processing.progress === null ? '' : `${Math.floor(processing.progress * 100)}% done, `}running for ${duration(processing.startedAt ?? processing.createdAt, Date.now())}.`}
        {processing.state === 'succeeded' &&
          `Processed in ${duration(processing.startedAt ?? processing.createdAt, Date.parse(processing.finishedAt ?? processing.createdAt))}.`}
        {processing.state === 'failed' && 'The processing failed.'}
      </p>
      {processing.state === 'running' && processing.progress !== null ? (
        // The job's own progress, as the worker last reported it.
        <Progress label="Processing" value={processing.progress} max={1} />
      ) : (
        isUnderway(processing) && (
          // Before the job reports how far it is, the bar says that it is working, not how far.
          <progress class="working" aria-label={`Processing ${processing.state === 'queued' ? 'waiting' : 'running'}`} />
        )
      )}
      {processing.state === 'failed' && (
        <p class="notice error" role="alert">
          Why: {processing.failureReason ?? 'the worker gave no reason.'}
        </p>
      )}
      {processing.state === 'succeeded' && processing.derivativeId && (
        <ul class="outputs" aria-label="What the processing made">
          <li>
            <Link href={`/nodes/${processing.derivativeId}`}>Open the point cloud {output?.name ?? ''}</Link>
          </li>
          {processing.tilesetUrl && (
            <li>
              Its 3D Tiles tileset (for viewers, with your token): <code>{processing.tilesetUrl}</code>
            </li>
          )}
        </ul>
      )}
      {processing.state === 'succeeded' && processing.tilesetUrl && props.bundle && <ShowInTwin bundle={props.bundle} />}
      <p class="processing-cost">Cost: {processing.cost} credits.</p>
    </div>
  );
}

/** The cost of processing the input, and the start, only after the person confirms that cost. */
export function StartProcessing(props: { bundle: Bundle; again: boolean; onStarted: () => void }) {
  const session = useSession();
  const { bundle } = props;
  const [asking, setAsking] = useState(false);
  const estimate = useResource(
    () => ok(session.api.GET('/v1/bundles/{bundleId}/processing/cost', { params: { path: { bundleId: bundle.id } } })),
    [bundle.id, bundle.updatedAt],
  );
  if (!estimate.data) return <ErrorNotice error={estimate.error} />;
  const { cost, unit } = estimate.data;
  return (
    <div class="start-processing">
      <p>
        Processing {props.again ? 'again ' : ''}costs <strong>{`${cost} ${unit}`}</strong>.
      </p>
      <button type="button" onClick={() => setAsking(true)}>
        {props.again ? 'Process again…' : 'Process…'}
      </button>
      {asking && (
        <ConfirmDialog
          title={`Process ${bundle.name}?`}
          confirm={`Start processing for ${cost} ${unit}`}
          onClose={() => setAsking(false)}
          action={async () => {
            try {
              await ok(
                session.api.POST('/v1/bundles/{bundleId}/processing', {
                  params: { path: { bundleId: bundle.id }, header: { 'idempotency-key': crypto.randomUUID() } },
                  body: { cost },
                }),
              );
            } catch (refusal) {
              estimate.reload();
              throw new Error(describeStartRefusal(refusal));
            }
            setAsking(false);
            props.onStarted();
          }}
        >
          <p>
            Its input is turned into a point cloud beside it. This costs {cost} {unit}, charged to your organization.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
