import { useId, useRef, useState } from 'preact/hooks';

/**
 * A new session's HTML (the iframe the API answers, the token in its address's fragment) to
 * paste into a page of an allowed origin, with a Copy button. Where the clipboard is refused (an
 * insecure origin, a browser that asks no permission), the text is selected and the person told to
 * copy it with the keyboard.
 */
export function EmbedHtml(props: { html: string }) {
  const id = useId();
  const text = useRef<HTMLTextAreaElement>(null);
  const [copy, setCopy] = useState<'copied' | 'failed'>();

  async function copyHtml() {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(props.html);
      setCopy('copied');
    } catch {
      text.current?.focus();
      text.current?.select();
      setCopy('failed');
    }
  }

  return (
    <div class="embed-html">
      <label for={id}>HTML to paste into your page</label>
      <textarea id={id} ref={text} readOnly rows={4} value={props.html} onFocus={(event) => event.currentTarget.select()} />
      <p class="embed-copy">
        <button type="button" onClick={() => void copyHtml()}>
          Copy HTML
        </button>{' '}
        <span role="status">
          {copy === 'copied'
            ? 'Copied to the clipboard.'
            : copy === 'failed'
              ? 'The browser did not let us copy: the HTML is selected, copy it with Ctrl+C (⌘C on a Mac).'
              : ''}
        </span>
      </p>
      <p>This is the only time the session's token is shown: it is in the address after the #. Keep the HTML now.</p>
    </div>
  );
}
