import { RdpApiError } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, Loading, TextField } from '../../ui/components.js';
import { DialogButtons, useSubmission } from '../../ui/form-dialog.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import {
  type Comparison,
  type ComparisonMethod,
  comparisonCost,
  DEFAULT_MAX_DISTANCE,
  DEFAULT_TOLERANCE,
  describeComparisonRefusal,
  METHOD_WORDS,
  startComparison,
} from './comparison-api.js';
import { SelectField } from './fields.js';
import { processedBundlesOf } from './twin-layers.js';

/**
 * A comparison of two of the site's processed point clouds: the bundles, the method and the
 * distances (the API's defaults), the cost read for the chosen pair and submitted as shown; a
 * refusal stays in the dialog in words.
 */
export function StartComparisonDialog(props: {
  siteId: string;
  onStarted: (comparison: Comparison) => void;
  onClose: () => void;
}) {
  const session = useSession();
  const { siteId } = props;
  const bundles = useResource(
    async () => (await processedBundlesOf(session, siteId)).filter((bundle) => bundle.pointCloud),
    [siteId],
  );
  const offered = bundles.data ?? [];
  const [name, setName] = useState('');
  const [reference, setReference] = useState('');
  const [compared, setCompared] = useState('');
  const [method, setMethod] = useState<ComparisonMethod>('c2c');
  const [maxDistance, setMaxDistance] = useState(String(DEFAULT_MAX_DISTANCE));
  const [tolerance, setTolerance] = useState(String(DEFAULT_TOLERANCE));
  const submission = useSubmission();
  const referenceBundleId = reference || offered[0]?.id || '';
  const comparedBundleId = compared || offered.find((bundle) => bundle.id !== referenceBundleId)?.id || '';
  const pair = referenceBundleId && comparedBundleId && referenceBundleId !== comparedBundleId;
  const cost = useResource(
    async () => (pair ? comparisonCost(session, siteId, { referenceBundleId, comparedBundleId }) : undefined),
    [siteId, referenceBundleId, comparedBundleId],
  );

  async function start(event: Event) {
    event.preventDefault();
    const shown = cost.data;
    if (!pair || !shown) return;
    await submission.run(async () => {
      try {
        const comparison = await startComparison(session, siteId, {
          ...(name.trim() ? { name: name.trim() } : {}),
          referenceBundleId,
          comparedBundleId,
          method,
          maxDistance: Number(maxDistance),
          tolerance: Number(tolerance),
          cost: shown.cost,
        });
        props.onStarted(comparison);
      } catch (refusal) {
        if (refusal instanceof RdpApiError && refusal.error === 'ProcessingCostMismatch') cost.reload();
        throw new Error(describeComparisonRefusal(refusal));
      }
    });
  }

  const options = offered.map((bundle) => ({ value: bundle.id, label: bundle.name }));
  return (
    <Dialog title="New comparison" onClose={props.onClose}>
      <form onSubmit={start}>
        <p>Every point of the compared scan gets its distance to the reference scan.</p>
        {!bundles.data ? (
          bundles.error ? (
            <ErrorNotice error={bundles.error} />
          ) : (
            <Loading label="Looking for the site's processed point clouds…" />
          )
        ) : offered.length < 2 ? (
          <p>A comparison needs two processed point clouds of this site. Upload the scans into the site and process them.</p>
        ) : (
          <>
            <TextField label="Name (optional)" value={name} onValue={setName} maxLength={255} />
            <SelectField label="Reference scan" value={referenceBundleId} onValue={setReference} options={options} />
            <SelectField label="Compared scan" value={comparedBundleId} onValue={setCompared} options={options} />
            <SelectField
              label="Method"
              value={method}
              onValue={(value) => setMethod(value as ComparisonMethod)}
              options={(Object.keys(METHOD_WORDS) as ComparisonMethod[]).map((value) => ({ value, label: METHOD_WORDS[value] }))}
            />
            <TextField
              label="Maximum distance (m)"
              type="number"
              step="any"
              required
              value={maxDistance}
              onValue={setMaxDistance}
            />
            <TextField label="Tolerance (m)" type="number" step="any" required value={tolerance} onValue={setTolerance} />
            {!pair ? (
              <p class="notice error" role="alert">
                Choose two different scans.
              </p>
            ) : cost.data ? (
              <p class="comparison-cost" role="status">
                Comparing them costs <strong>{`${cost.data.cost} ${cost.data.unit}`}</strong>, charged to your organization.
              </p>
            ) : (
              <RefusalNotice error={cost.error ? new Error(describeComparisonRefusal(cost.error)) : undefined} />
            )}
          </>
        )}
        <RefusalNotice error={submission.error} />
        <DialogButtons
          label={cost.data && pair ? `Start comparison for ${cost.data.cost} ${cost.data.unit}` : 'Start comparison'}
          busy={submission.busy}
          disabled={!pair || !cost.data || cost.loading}
          onClose={props.onClose}
        />
      </form>
    </Dialog>
  );
}
