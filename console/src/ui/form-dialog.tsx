import type { ComponentChildren, ComponentType } from 'preact';
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice } from './components.js';

/**
 * One submission at a time and its refusal: `run` marks it busy and clears the last refusal; a
 * refusal is kept to be shown, and the person may try again. A success stays busy: what ran it is
 * closing (or moving on), so a second click must not send it twice.
 */
export function useSubmission() {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  async function run(action: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await action();
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }
  return { busy, error, setError, run };
}

/** A dialog's row of buttons: Cancel, then the one that does it (the form's submit button, or `onClick`'s). */
export function DialogButtons(props: {
  label: ComponentChildren;
  busy: boolean;
  disabled?: boolean;
  danger?: boolean;
  onClose: () => void;
  onClick?: () => void;
}) {
  return (
    <div class="buttons">
      <button type="button" class="quiet" onClick={props.onClose}>
        Cancel
      </button>
      <button
        type={props.onClick ? 'button' : 'submit'}
        class={props.danger ? 'danger' : undefined}
        disabled={props.busy || props.disabled}
        onClick={props.onClick}
      >
        {props.label}
      </button>
    </div>
  );
}

export interface DialogFormProps {
  /** The submit button's words. */
  submit: ComponentChildren;
  /** The API call; it ends by handing the result on (which closes the dialog), or throws the refusal. */
  onSubmit: () => Promise<void>;
  onClose: () => void;
  /** The submit button is disabled for a reason besides a submission under way (a choice not loaded yet). */
  disabled?: boolean;
  danger?: boolean;
  /** How a refusal is put in words: the platform's message (ErrorNotice) unless an area explains its own codes. */
  notice?: ComponentType<{ error: unknown }>;
  /** A failure shown in place of the refusal while there is one (something the form offers could not be loaded). */
  failure?: unknown;
  children: ComponentChildren;
}

/** A dialog's form: its fields (children), the last refusal in words, then Cancel and the submit button. */
export function DialogForm(props: DialogFormProps) {
  const submission = useSubmission();
  const Notice = props.notice ?? ErrorNotice;
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        void submission.run(props.onSubmit);
      }}
    >
      {props.children}
      <Notice error={props.failure ?? submission.error} />
      <DialogButtons
        label={props.submit}
        busy={submission.busy}
        disabled={props.disabled}
        danger={props.danger}
        onClose={props.onClose}
      />
    </form>
  );
}

/** A modal dialog that is one form (see DialogForm). */
export function FormDialog(props: DialogFormProps & { title: string }) {
  const { title, ...form } = props;
  return (
    <Dialog title={title} onClose={props.onClose}>
      <DialogForm {...form} />
    </Dialog>
  );
}
