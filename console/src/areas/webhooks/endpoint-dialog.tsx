import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { ALL_EVENTS, loadEventTypes, type Webhook, type WebhookWithSecret } from './webhook-data.js';

type Saved = { created: WebhookWithSecret } | { updated: Webhook };

/**
 * A new endpoint (POST /v1/webhooks), or changes to one (PATCH): its address, the events it hears
 * of (all, or those chosen from the platform's list), a description, and whether it is active.
 */
export function EndpointDialog(props: { webhook?: Webhook; onSaved: (saved: Saved) => void; onClose: () => void }) {
  const session = useSession();
  const { webhook } = props;
  const eventTypes = useResource(() => loadEventTypes(session), []);
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [chosen, setChosen] = useState<string[]>(webhook?.eventTypes ?? [ALL_EVENTS]);
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const all = chosen.includes(ALL_EVENTS);

  async function save() {
    const body = { url: url.trim(), eventTypes: chosen, description: description.trim() || null, enabled };
    if (!webhook) {
      props.onSaved({ created: await ok(session.api.POST('/v1/webhooks', { body })) });
      return;
    }
    const path = { webhookId: webhook.id };
    props.onSaved({ updated: await ok(session.api.PATCH('/v1/webhooks/{webhookId}', { params: { path }, body })) });
  }

  function toggle(type: string, on: boolean) {
    setChosen((current) => (on ? [...current.filter((item) => item !== type), type] : current.filter((item) => item !== type)));
  }

  return (
    <FormDialog
      title={webhook ? `Change the endpoint ${webhook.url}` : 'New webhook endpoint'}
      submit={webhook ? 'Save' : 'Create endpoint'}
      failure={eventTypes.error}
      disabled={chosen.length === 0}
      onSubmit={save}
      onClose={props.onClose}
    >
      <TextField label="Address (URL)" type="url" value={url} onValue={setUrl} required maxLength={2000} autoFocus />
      <p class="hint">An https address the platform can reach on the internet.</p>
      <TextField label="Description" value={description} onValue={setDescription} maxLength={500} />
      <fieldset class="choices event-types">
        <legend>Events to send</legend>
        <label class="check all-events">
          <input type="checkbox" checked={all} onChange={(event) => setChosen(event.currentTarget.checked ? [ALL_EVENTS] : [])} />
          All events, including those added later
        </label>
        {(eventTypes.data ?? []).map((type) => (
          <label class="check" key={type}>
            <input
              type="checkbox"
              disabled={all}
              checked={all || chosen.includes(type)}
              onChange={(event) => toggle(type, event.currentTarget.checked)}
            />
            {type}
          </label>
        ))}
      </fieldset>
      {chosen.length === 0 && <p class="hint">Choose at least one event.</p>}
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.currentTarget.checked)} />
        Active: send events to it
      </label>
    </FormDialog>
  );
}
