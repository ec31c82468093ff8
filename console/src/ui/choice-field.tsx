import { useId } from 'preact/hooks';

/** A labelled select of `[value, label]` options; the label is tied to it like TextField's. */
export function ChoiceField(props: {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: [value: string, label: string][];
  required?: boolean;
}) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        required={props.required}
        onChange={(event) => props.onValue((event.target as HTMLSelectElement).value)}
      >
        {props.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}
