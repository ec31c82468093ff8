import { useState } from 'preact/hooks';

/**
 * A button that copies `text` to the clipboard and says whether it did; where the browser
 * refuses (no permission, not a secure origin) it asks the person to select and copy it.
 */
export function CopyButton(props: { text: string; label: string }) {
  const [said, setSaid] = useState<string>();
  async function copy() {
    try {
      await navigator.clipboard.writeText(props.text);
      setSaid('Copied.');
    } catch {
      setSaid('The browser did not allow copying: select the text and copy it yourself.');
    }
  }
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()}>
        {props.label}
      </button>
      <span role="status" class="muted">
        {said}
      </span>
    </span>
  );
}
