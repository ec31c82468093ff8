import { useId, useState } from 'preact/hooks';
import { Dialog } from '../../ui/components.js';

/**
 * An endpoint's signing secret, shown once (after creating the endpoint or rotating its secret):
 * the platform never answers it again, so the person copies it now (docs/console.md, "Webhooks").
 */
export function SecretDialog(props: { title: string; secret: string; note?: string; onClose: () => void }) {
  const id = useId();
  const [copied, setCopied] = useState<boolean>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.secret);
      setCopied(true);
    } catch {
      // No clipboard (an insecure page, or refused): the field stays there to select by hand.
      setCopied(false);
    }
  }
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      <p>
        Copy the signing secret now and keep it with the receiver: it is shown only this once. The receiver checks each delivery's
        signature with it.
      </p>
      {props.note && <p>{props.note}</p>}
      <div class="field">
        <label for={id}>Signing secret</label>
        <input
          id={id}
          class="secret"
          readOnly
          value={props.secret}
          onFocus={(event) => (event.target as HTMLInputElement).select()}
        />
      </div>
      <p role="status" class="hint">
        {copied === true ? 'Copied.' : copied === false ? 'Could not copy: select the secret and copy it by hand.' : ''}
      </p>
      <div class="buttons">
        <button type="button" class="quiet" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
