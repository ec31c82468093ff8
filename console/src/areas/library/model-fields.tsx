import { useId } from 'preact/hooks';
import type { LibraryTag } from './library-types.js';

/** A model's description: a labelled text area (up to 2000 characters). */
export function DescriptionField(props: { value: string; onValue: (value: string) => void }) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>Description (optional)</label>
      <textarea
        id={id}
        rows={3}
        maxLength={2000}
        value={props.value}
        onInput={(event) => props.onValue((event.target as HTMLTextAreaElement).value)}
      />
    </div>
  );
}

/** The organization's tags as checkboxes; `chosen` is the set of tag ids. */
export function TagChoice(props: { tags: LibraryTag[]; chosen: string[]; onChosen: (ids: string[]) => void }) {
  if (props.tags.length === 0) return <p class="hint">The library has no tags yet (make them on the Tags screen).</p>;
  return (
    <fieldset class="tag-choice">
      <legend>Tags</legend>
      {props.tags.map((tag) => (
        <label key={tag.id} class="choice">
          <input
            type="checkbox"
            checked={props.chosen.includes(tag.id)}
            onChange={(event) =>
              props.onChosen(
                (event.target as HTMLInputElement).checked
                  ? [...props.chosen, tag.id]
                  : props.chosen.filter((id) => id !== tag.id),
              )
            }
          />
          {tag.name}
        </label>
      ))}
    </fieldset>
  );
}
