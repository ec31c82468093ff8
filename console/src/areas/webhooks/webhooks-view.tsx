import { useState } from 'preact/hooks';
import { ErrorNotice, Link } from '../../ui/components.js';
import { takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome, type OutcomeOf } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { EndpointDialog } from './endpoint-dialog.js';
import { SecretDialog } from './secret-dialog.js';
import { endpointState, eventsInWords, itemsOf, type Webhook, type WebhookWithSecret } from './webhook-data.js';
import { WebhooksFrame } from './webhooks-frame.js';

/** The organization's webhook endpoints (GET /v1/webhooks, oldest first), each leading to its own screen; a new one. */
export function WebhooksView() {
  const session = useSession();
  const endpoints = usePagedList<Webhook>((page) => itemsOf(session.api.GET('/v1/webhooks', { params: { query: page } })), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<WebhookWithSecret>();
  // An endpoint deleted on its own screen says so here.
  const [outcome, setOutcome] = useState<OutcomeOf>(() => {
    const message = takeFlash();
    return message ? { message } : undefined;
  });
  return (
    <WebhooksFrame
      title="Webhooks"
      actions={
        <button type="button" onClick={() => setCreating(true)}>
          New endpoint
        </button>
      }
    >
      <Outcome outcome={outcome} />
      <p>
        A webhook endpoint is an address of yours that the platform tells of changes (a processing finished, a node moved), each
        delivery signed with the endpoint's secret.
      </p>
      {!endpoints.items ? (
        <LoadingOrError error={endpoints.error} />
      ) : endpoints.items.length === 0 ? (
        <p>There is no endpoint yet.</p>
      ) : (
        <EndpointsTable endpoints={endpoints.items} />
      )}
      {endpoints.items && <ErrorNotice error={endpoints.error} />}
      <ShowMore list={endpoints} what="endpoints" />
      {creating && (
        <EndpointDialog
          onSaved={(saved) => {
            setCreating(false);
            if ('created' in saved) {
              setCreated(saved.created);
              setOutcome({ message: `Endpoint ${saved.created.url} created.` });
            }
            endpoints.reload();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {created && <SecretDialog title="Endpoint created" secret={created.secret} onClose={() => setCreated(undefined)} />}
    </WebhooksFrame>
  );
}

function EndpointsTable(props: { endpoints: Webhook[] }) {
  return (
    <table class="webhooks-table">
      <caption class="visually-hidden">Webhook endpoints</caption>
      <thead>
        <tr>
          <th scope="col">Address</th>
          <th scope="col">Description</th>
          <th scope="col">Events</th>
          <th scope="col">State</th>
        </tr>
      </thead>
      <tbody>
        {props.endpoints.map((webhook) => (
          <tr key={webhook.id}>
            <td class="address">
              <Link href={`/webhooks/${webhook.id}`}>{webhook.url}</Link>
            </td>
            <td>{webhook.description ?? ''}</td>
            <td>{eventsInWords(webhook.eventTypes)}</td>
            <td>{endpointState(webhook)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
