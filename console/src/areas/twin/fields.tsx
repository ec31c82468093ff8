import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { Vector3 } from './twin-api.js';

/** Three labelled number inputs (metres, in the twin's frame) in a group named by its legend. */
export function VectorFields(props: {
  legend: string;
  value: Vector3;
  onValue: (value: Vector3) => void;
  min?: number;
  children?: ComponentChildren;
}) {
  const id = useId();
  return (
    <fieldset class="vector">
      <legend>{props.legend}</legend>
      {(['x', 'y', 'z'] as const).map((axis) => (
        <span class="axis" key={axis}>
          <label for={`${id}-${axis}`}>{axis.toUpperCase()}</label>
          <input
            id={`${id}-${axis}`}
            type="number"
            step="any"
            required
            min={props.min}
            value={String(props.value[axis])}
            onInput={(event) => props.onValue({ ...props.value, [axis]: Number((event.target as HTMLInputElement).value) })}
          />
        </span>
      ))}
      {props.children}
    </fieldset>
  );
}

/** A labelled select; `''` is the "none" option when `none` is given. */
export function SelectField(props: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: { value: string; label: string }[];
  none?: string;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(event) => props.onValue((event.target as HTMLSelectElement).value)}>
        {props.none !== undefined && <option value="">{props.none}</option>}
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  );
}

export function TextAreaField(props: { label: string; value: string; onValue: (value: string) => void; maxLength?: number }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        rows={3}
        maxLength={props.maxLength}
        value={props.value}
        onInput={(event) => props.onValue((event.target as HTMLTextAreaElement).value)}
      />
    </div>
  );
}

/** A colour as the API takes it (#rrggbb) or none: a checkbox, then the browser's colour picker. */
export function ColorField(props: { value: string | null; onValue: (value: string | null) => void }) {
  const id = useId();
  return (
    <div class="field color-field">
      <label class="check">
        <input
          type="checkbox"
          checked={props.value !== null}
          onChange={(event) => props.onValue((event.target as HTMLInputElement).checked ? '#e5484d' : null)}
        />
        Own colour
      </label>
      {props.value !== null && (
        <>
          <label for={id} class="visually-hidden">
            Colour
          </label>
          <input
            id={id}
            type="color"
            value={props.value}
            onInput={(event) => props.onValue((event.target as HTMLInputElement).value)}
          />
        </>
      )}
    </div>
  );
}
