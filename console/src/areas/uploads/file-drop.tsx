import { useId, useState } from 'preact/hooks';

/**
 * Where files are given: dropped on the zone, or chosen with the file picker inside it (the
 * keyboard's way, and a screen reader's). Several at once either way.
 */
export function FileDrop(props: { label: string; onFiles: (files: File[]) => void; disabled?: boolean }) {
  const id = useId();
  const [over, setOver] = useState(false);
  return (
    // A fieldset named by its legend: the drop target for a pointer; the picker inside is the keyboard's way.
    <fieldset
      class={over ? 'file-drop over' : 'file-drop'}
      onDragOver={(event) => {
        event.preventDefault();
        if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const files = [...(event.dataTransfer?.files ?? [])];
        if (files.length > 0 && !props.disabled) props.onFiles(files);
      }}
    >
      <legend>Drop files here, or choose them:</legend>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        type="file"
        multiple
        disabled={props.disabled}
        onChange={(event) => {
          const input = event.target as HTMLInputElement;
          const files = [...(input.files ?? [])];
          input.value = '';
          if (files.length > 0) props.onFiles(files);
        }}
      />
    </fieldset>
  );
}
