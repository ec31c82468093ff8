import type { LibraryModel } from './library-types.js';

/** A model's tags, each with its colour as a swatch beside the name (the name says it; the colour only helps). */
export function TagChips(props: { tags: NonNullable<LibraryModel['tags']> }) {
  if (props.tags.length === 0) return null;
  return (
    <ul class="tag-chips" aria-label="Tags">
      {props.tags.map((tag) => (
        <li key={tag.id}>
          {tag.color && <span class="swatch" style={{ background: tag.color }} aria-hidden="true" />}
          {tag.name}
        </li>
      ))}
    </ul>
  );
}
