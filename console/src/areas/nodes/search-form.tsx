import { useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { TextField } from '../../ui/components.js';

/** The search box of the Data screens: leads to the search screen, inside `under` when it is set. */
export function SearchForm(props: { initial?: string; under?: { id: string; name: string }; onlyUnder?: boolean }) {
  const [text, setText] = useState(props.initial ?? '');
  const [onlyUnder, setOnlyUnder] = useState(props.onlyUnder ?? false);
  function search(event: Event) {
    event.preventDefault();
    const query = new URLSearchParams({ q: text });
    if (props.under && onlyUnder) query.set('under', props.under.id);
    navigate(`/search?${query}`);
  }
  return (
    <search aria-label="Search your data">
      <form class="search-form inline-form" onSubmit={search}>
        <TextField label="Search by name" type="search" value={text} onValue={setText} required maxLength={255} />
        {props.under && (
          <label class="check">
            <input
              type="checkbox"
              checked={onlyUnder}
              onChange={(event) => setOnlyUnder((event.target as HTMLInputElement).checked)}
            />
            Only inside {props.under.name}
          </label>
        )}
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
