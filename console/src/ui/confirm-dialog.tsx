import type { ComponentChildren, ComponentType } from 'preact';
import { Dialog } from './components.js';
import { DialogButtons, useSubmission } from './form-dialog.js';
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
  /** How a refusal is put in words: the tree's refusals (RefusalNotice) unless an area explains its own codes. */
  notice?: ComponentType<{ error: unknown }>;
}) {
  const submission = useSubmission();
  const Notice = props.notice ?? RefusalNotice;
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {props.children}
      <Notice error={submission.error} />
      <DialogButtons
        label={props.confirm}
        danger={props.danger}
        busy={submission.busy}
        onClose={props.onClose}
        onClick={() => submission.run(props.action)}
      />
    </Dialog>
  );
}
