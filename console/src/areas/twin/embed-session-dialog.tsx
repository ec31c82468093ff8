import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, TextField } from '../../ui/components.js';
import { DialogForm } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { EmbedHtml } from './embed-html.js';
import {
  DEFAULT_LIFETIME_MINUTES,
  type EmbedSession,
  embedFormProblem,
  MAX_LIFETIME_MINUTES,
  MIN_LIFETIME_MINUTES,
  parseOrigins,
} from './embed-session-api.js';
import { TextAreaField } from './fields.js';

/**
 * A new embed session of the site's twin (POST /v1/embed-sessions, docs/embedding.md): the
 * origins that may frame it and its lifetime; once made, its HTML to copy (shown this once).
 */
export function EmbedSessionDialog(props: { siteId: string; onCreated: (session: EmbedSession) => void; onClose: () => void }) {
  const session = useSession();
  const [origins, setOrigins] = useState('');
  const [minutes, setMinutes] = useState(String(DEFAULT_LIFETIME_MINUTES));
  const [made, setMade] = useState<EmbedSession>();

  async function create() {
    const allowedOrigins = parseOrigins(origins);
    const lifetime = Number(minutes);
    const problem = embedFormProblem(allowedOrigins, lifetime);
    if (problem) throw new Error(problem);
    const created = await ok(
      session.api.POST('/v1/embed-sessions', {
        body: { twinId: props.siteId, allowedOrigins, expiresInSeconds: lifetime * 60 },
      }),
    );
    setMade(created);
    props.onCreated(created);
  }

  if (made) {
    return (
      <Dialog title="Embed session made" onClose={props.onClose}>
        <p>
          Pages of {made.allowedOrigins.join(', ')} may show this twin until{' '}
          <time dateTime={made.expiresAt}>{new Date(made.expiresAt).toLocaleString()}</time>.
        </p>
        <EmbedHtml html={made.embedHtml ?? ''} />
        <div class="buttons">
          <button type="button" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="New embed session" onClose={props.onClose}>
      <DialogForm submit="Make the session" onSubmit={create} onClose={props.onClose}>
        <p>
          A read-only view of this twin for another web application: only pages of the origins below may frame it, until it ends
          or is revoked.
        </p>
        <TextAreaField
          label="Allowed origins (one a line, such as https://app.example.com)"
          value={origins}
          onValue={setOrigins}
        />
        <TextField
          label={`Lifetime in minutes (${MIN_LIFETIME_MINUTES} to ${MAX_LIFETIME_MINUTES})`}
          type="number"
          required
          value={minutes}
          onValue={setMinutes}
        />
      </DialogForm>
    </Dialog>
  );
}
