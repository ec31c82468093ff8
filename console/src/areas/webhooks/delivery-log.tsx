import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { DeliveryDialog } from './delivery-dialog.js';
import { type Delivery, deliveryState, formatTime, itemsOf, underway } from './webhook-data.js';

/** Read again this often while a delivery on the page is still under way. */
const POLL_MS = 1000;
const PAGE = 20;

/** The endpoint's deliveries, newest first, 20 at a time; each opens its detail, from which it can be sent again. */
export function DeliveryLog(props: { webhookId: string; onRedelivered: () => void }) {
  const session = useSession();
  const path = { webhookId: props.webhookId };
  const deliveries = usePagedList<Delivery>(
    (page) => itemsOf(session.api.GET('/v1/webhooks/{webhookId}/deliveries', { params: { path, query: page } })),
    [props.webhookId],
    PAGE,
  );
  const [shown, setShown] = useState<Delivery>();
  // Only the first page is read again: a person paging back through the log is not interrupted.
  const watching = (deliveries.items?.length ?? 0) <= PAGE && (deliveries.items?.some(underway) ?? false);
  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(deliveries.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [watching]);

  return (
    <section aria-labelledby="deliveries-heading" class="delivery-log">
      <div class="panel-title">
        <h2 id="deliveries-heading">Delivery log</h2>
        <div class="actions">
          <button type="button" class="quiet" disabled={deliveries.loading} onClick={deliveries.reload}>
            Refresh
          </button>
        </div>
      </div>
      {!deliveries.items ? (
        <LoadingOrError error={deliveries.error} />
      ) : deliveries.items.length === 0 ? (
        <p>Nothing was sent to this endpoint yet. Send a test event to see one.</p>
      ) : (
        <table class="deliveries">
          <caption class="visually-hidden">Deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Event</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response</th>
              <th scope="col">
                <span class="visually-hidden">Detail</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.items.map((delivery) => (
              <tr key={delivery.id} data-delivery-id={delivery.id}>
                <td>{formatTime(delivery.createdAt)}</td>
                <td>{delivery.eventType}</td>
                <td>{deliveryState(delivery)}</td>
                <td>{delivery.attempt}</td>
                <td>{delivery.responseStatus ?? '—'}</td>
                <td class="row-actions">
                  <button
                    type="button"
                    class="quiet"
                    aria-label={`Detail of the ${delivery.eventType} delivery of ${formatTime(delivery.createdAt)}`}
                    onClick={() => setShown(delivery)}
                  >
                    Detail
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {deliveries.items && <ErrorNotice error={deliveries.error} />}
      <ShowMore list={deliveries} what="deliveries" />
      {shown && (
        <DeliveryDialog
          webhookId={props.webhookId}
          delivery={shown}
          onRedelivered={() => {
            setShown(undefined);
            props.onRedelivered();
          }}
          onClose={() => setShown(undefined)}
        />
      )}
    </section>
  );
}
