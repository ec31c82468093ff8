import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog } from '../../ui/components.js';
import { RefusalNotice } from './refusals.js';

/**
 * A question before an action (moving to the trash, deleting for good): the action runs on the
 * confirming button, and a refusal is shown in the dialog in words.
 */
export function ConfirmDialog(props: {
  title: string;
  children: ComponentChildren;
  confirm: string;
  danger?: boolean;
  action: () => Promise<void>;
  onClose: () => void;
}) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function run() {
    setBusy(true);
    setError(undefined);
    try {
      await props.action();
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.children}
      <RefusalNotice error={error} />
      <div class="buttons">
        <button type="button" class="quiet" onClick={props.onClose}>
          Cancel
        </button>
        <button type="button" class={props.danger ? 'danger' : undefined} disabled={busy} onClick={run}>
          {props.confirm}
        </button>
      </div>
    </Dialog>
  );
}
