import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import { BASE_PATH } from '../config.js';
import { onLinkClick } from '../router.js';
import { describeError } from './errors.js';

/** A link to a console path: `/nodes/abc`. */
export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  title?: string;
  'aria-current'?: 'page';
  'aria-label'?: string;
}) {
  const { href, children, ...rest } = props;
  return (
    <a {...rest} href={`${BASE_PATH}${href}`} onClick={(event) => onLinkClick(event, href)}>
      {children}
    </a>
  );
}

/**
 * A screen's title: the document's title too, and focused when the screen changes, so a screen
 * reader announces where a navigation led.
 */
export function PageTitle(props: { children: string; actions?: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.children} · Reality Data Platform`;
    heading.current?.focus({ preventScroll: true });
  }, [props.children]);
  return (
    <div class="page-title">
      <h1 ref={heading} tabIndex={-1}>
        {props.children}
      </h1>
      {props.actions && <div class="actions">{props.actions}</div>}
    </div>
  );
}

/** An error in words, announced at once. */
export function ErrorNotice(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) return null;
  return (
    <p class="notice error" role="alert">
      {describeError(props.error)}
    </p>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <p class="loading" role="status">
      {props.label ?? 'Loading…'}
    </p>
  );
}

/** A labelled text input; the label is tied to it, so a click or a screen reader finds it. */
export function TextField(props: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  type?: 'text' | 'email' | 'search' | 'number' | 'url' | 'date';
  required?: boolean;
  name?: string;
  autoComplete?: string;
  placeholder?: string;
  maxLength?: number;
  autoFocus?: boolean;
  /** For numbers: `any` takes decimals. */
  step?: string;
}) {
  const { label, value, onValue, ...rest } = props;
  const id = useId();
  // Preact's input types discriminate on a literal `type`; these attributes are valid for each.
  const attributes = { type: 'text', ...rest } as Record<string, unknown>;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input {...attributes} id={id} value={value} onInput={(event) => onValue((event.target as HTMLInputElement).value)} />
    </div>
  );
}

/** A labelled progress bar with its figure in words beside it. */
export function Progress(props: { label: string; value: number; max: number; text?: string }) {
  const id = useId();
  const percent = props.max > 0 ? Math.floor((props.value / props.max) * 100) : 0;
  return (
    <div class="progress">
      <label for={id}>{props.label}</label>
      <progress id={id} value={props.value} max={props.max} />
      <span>{props.text ?? `${percent}%`}</span>
    </div>
  );
}

/**
 * A modal dialog on the native <dialog> (focus kept inside, Escape closes): shown while mounted.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby={titleId} onClose={props.onClose}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** Bytes in words: 1.5 GB. */
export function formatBytes(bytes: number): string {
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return unit === 0 ? `${value} ${units[0]}` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
