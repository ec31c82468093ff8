import { ok } from '@reality-data-platform/sdk/browser';
import { Dialog } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { type Delivery, deliveryState, formatTime } from './webhook-data.js';

/**
 * One delivery as the platform has it now (GET .../deliveries/{deliveryId}), and sending it again:
 * a new delivery of the same event, with the same webhook-id, so a receiver that already has it
 * can tell (docs/webhooks.md).
 */
export function DeliveryDialog(props: { webhookId: string; delivery: Delivery; onRedelivered: () => void; onClose: () => void }) {
  const session = useSession();
  const path = { webhookId: props.webhookId, deliveryId: props.delivery.id };
  const fresh = useResource(
    () => ok(session.api.GET('/v1/webhooks/{webhookId}/deliveries/{deliveryId}', { params: { path } })),
    [props.delivery.id],
  );
  const submission = useSubmission();
  const delivery = fresh.data ?? props.delivery;
  return (
    <Dialog title={`Delivery of ${delivery.eventType}`} onClose={props.onClose}>
      <dl class="facts delivery-facts">
        <dt>Created</dt>
        <dd>{formatTime(delivery.createdAt)}</dd>
        <dt>State</dt>
        <dd>{deliveryState(delivery)}</dd>
        <dt>Attempts</dt>
        <dd>{delivery.attempt}</dd>
        <dt>Response code</dt>
        <dd>{delivery.responseStatus ?? 'None yet'}</dd>
        <dt>Took</dt>
        <dd>{delivery.durationMs === null ? '—' : `${delivery.durationMs} ms`}</dd>
        <dt>Error</dt>
        <dd>{delivery.error ?? 'None'}</dd>
        <dt>Event id (webhook-id)</dt>
        <dd class="address">{delivery.eventId}</dd>
        <dt>Delivery id</dt>
        <dd class="address">{delivery.id}</dd>
      </dl>
      {!fresh.data && fresh.error !== undefined && <LoadingOrError error={fresh.error} />}
      <RefusalNotice error={submission.error} />
      <div class="buttons">
        <button type="button" class="quiet" onClick={props.onClose}>
          Close
        </button>
        <button
          type="button"
          disabled={submission.busy}
          onClick={() =>
            submission.run(async () => {
              await ok(session.api.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { params: { path } }));
              props.onRedelivered();
            })
          }
        >
          Redeliver
        </button>
      </div>
    </Dialog>
  );
}
