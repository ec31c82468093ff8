import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { useSession } from '../../ui/session-context.js';
import type { ConsoleObjectKind } from './object-kinds.js';
import type { TwinContext } from './twin-api.js';

/**
 * What the twin object panels share (points of interest, zones): a panel with its heading and
 * New button, each object's name that selects it and its Edit and Delete buttons, the delete's
 * confirmation. A kind's panel adds how it lists its objects and its dialog.
 */

/** The dialog a panel has open over one of its objects, and the notice when one saved: it closes. */
export function usePanelDialog<Dialog>(onChanged: (message: string) => void) {
  const [dialog, setDialog] = useState<Dialog>();
  function saved(message: string) {
    setDialog(undefined);
    onChanged(message);
  }
  return { dialog, open: setDialog, close: () => setDialog(undefined), saved };
}

export function ObjectPanel(props: {
  /** The heading's id (the section is labelled by it). */
  id: string;
  title: string;
  context: TwinContext;
  /** The New button's label: "New zone". */
  newLabel: string;
  onNew: () => void;
  children: ComponentChildren;
}) {
  return (
    <section class="twin-panel" aria-labelledby={props.id}>
      <div class="panel-heading">
        <h2 id={props.id}>{props.title}</h2>
        {props.context.canWrite && (
          <button type="button" onClick={props.onNew}>
            {props.newLabel}
          </button>
        )}
      </div>
      {props.children}
    </section>
  );
}

/** The object's name, in its colour: pressing it selects the object (the 3D view flies there). */
export function ObjectName(props: { name: string; color: string | null; selected: boolean; onSelect: () => void }) {
  return (
    <button type="button" class="object-name" aria-pressed={props.selected} onClick={props.onSelect}>
      {props.color && <span class="swatch" style={{ background: props.color }} aria-hidden="true" />}
      {props.name}
    </button>
  );
}

/** An editor's buttons for one object: the kind's own first (children), then Edit and Delete. */
export function ObjectActions(props: { name: string; onEdit: () => void; onDelete: () => void; children?: ComponentChildren }) {
  return (
    <span class="object-actions">
      {props.children}
      <button type="button" class="quiet" aria-label={`Edit ${props.name}`} onClick={props.onEdit}>
        Edit
      </button>
      <button type="button" class="quiet danger-text" aria-label={`Delete ${props.name}`} onClick={props.onDelete}>
        Delete
      </button>
    </span>
  );
}

/** The question before a delete; what the delete does to the rest is the kind's (children). */
export function DeleteObjectDialog(props: {
  kind: ConsoleObjectKind;
  context: TwinContext;
  object: { id: string; name: string };
  onDeleted: (message: string) => void;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const session = useSession();
  const { object } = props;
  return (
    <ConfirmDialog
      title={`Delete ${object.name}?`}
      confirm="Delete"
      danger
      onClose={props.onClose}
      action={async () => {
        await props.kind.remove(session, props.context.ctx, object.id);
        props.onDeleted(`${object.name} deleted.`);
      }}
    >
      {props.children}
    </ConfirmDialog>
  );
}
