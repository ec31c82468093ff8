import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { Link } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { flash, takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome, type OutcomeOf } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { DeliveryLog } from './delivery-log.js';
import { EndpointDialog } from './endpoint-dialog.js';
import { SecretDialog } from './secret-dialog.js';
import { endpointState, eventsInWords, formatTime, type Webhook } from './webhook-data.js';
import { WebhooksFrame } from './webhooks-frame.js';

/** One endpoint: change, test, rotate its secret or delete it, and its delivery log. */
export function WebhookView(props: { webhookId: string }) {
  const session = useSession();
  const path = { webhookId: props.webhookId };
  const webhook = useResource(() => ok(session.api.GET('/v1/webhooks/{webhookId}', { params: { path } })), [props.webhookId]);
  const [dialog, setDialog] = useState<'change' | 'rotate' | 'delete'>();
  // Kept apart from `dialog`: the confirmation's closing must not close the secret's dialog.
  const [newSecret, setNewSecret] = useState<string>();
  const [outcome, setOutcome] = useState<OutcomeOf>(() => {
    const message = takeFlash();
    return message ? { message } : undefined;
  });
  // Bumped after a test event or a redelivery, so the log reads its first page again.
  const [logGeneration, setLogGeneration] = useState(0);
  const [testing, setTesting] = useState(false);

  async function sendTest() {
    setTesting(true);
    try {
      await ok(session.api.POST('/v1/webhooks/{webhookId}/test', { params: { path } }));
      setOutcome({ message: 'Test event sent. Its delivery shows in the log below.' });
      setLogGeneration((generation) => generation + 1);
    } catch (error) {
      setOutcome({ error });
    } finally {
      setTesting(false);
    }
  }

  if (!webhook.data) {
    return (
      <WebhooksFrame title="Webhook endpoint">
        <LoadingOrError error={webhook.error} />
      </WebhooksFrame>
    );
  }
  const current: Webhook = webhook.data;
  return (
    <WebhooksFrame
      title="Webhook endpoint"
      actions={
        <>
          <button type="button" disabled={testing} onClick={() => void sendTest()}>
            Send a test event
          </button>
          <button type="button" class="quiet" onClick={() => setDialog('change')}>
            Change
          </button>
          <button type="button" class="quiet" onClick={() => setDialog('rotate')}>
            Rotate the secret
          </button>
          <button type="button" class="quiet danger-text" onClick={() => setDialog('delete')}>
            Delete endpoint
          </button>
        </>
      }
    >
      <p>
        <Link href="/webhooks">All endpoints</Link>
      </p>
      <dl class="facts webhook-facts">
        <dt>Address</dt>
        <dd class="address">{current.url}</dd>
        <dt>Description</dt>
        <dd>{current.description || 'None'}</dd>
        <dt>Events</dt>
        <dd>{eventsInWords(current.eventTypes)}</dd>
        <dt>State</dt>
        <dd>{endpointState(current)}</dd>
        <dt>Created</dt>
        <dd>{formatTime(current.createdAt)}</dd>
      </dl>
      <Outcome outcome={outcome} />
      <DeliveryLog
        key={logGeneration}
        webhookId={current.id}
        onRedelivered={() => {
          setOutcome({ message: 'Sent again as a new delivery of the same event.' });
          setLogGeneration((generation) => generation + 1);
        }}
      />
      {dialog === 'change' && (
        <EndpointDialog
          webhook={current}
          onSaved={() => {
            setDialog(undefined);
            setOutcome({ message: 'Endpoint saved.' });
            webhook.reload();
          }}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          confirm="Rotate the secret"
          onClose={() => setDialog(undefined)}
          action={async () => {
            const rotated = await ok(session.api.POST('/v1/webhooks/{webhookId}/rotate-secret', { params: { path } }));
            setDialog(undefined);
            setNewSecret(rotated.secret);
          }}
        >
          <p>
            A new secret signs every delivery from now on. For 24 hours each delivery also carries a signature made with the old
            secret, so the receiver can switch over without missing one.
          </p>
        </ConfirmDialog>
      )}
      {newSecret && (
        <SecretDialog
          title="New signing secret"
          secret={newSecret}
          onClose={() => {
            setNewSecret(undefined);
            setOutcome({ message: 'Secret rotated. The old one stops signing in 24 hours.' });
          }}
        />
      )}
      {dialog === 'delete' && (
        <ConfirmDialog
          title={`Delete the endpoint ${current.url}?`}
          confirm="Delete endpoint"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            await ok(session.api.DELETE('/v1/webhooks/{webhookId}', { params: { path } }));
            flash(`Endpoint ${current.url} deleted.`);
            navigate('/webhooks');
          }}
        >
          <p>It gets no more events, and its delivery log is deleted with it.</p>
        </ConfirmDialog>
      )}
    </WebhooksFrame>
  );
}
