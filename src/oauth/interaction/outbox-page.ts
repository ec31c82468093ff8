import type { MailOutboxRow } from '../../adapters/db/schema.js';
import { html, type SafeHtml } from '../../domain/html.js';
import { page } from './html.js';

const LINK = /https?:\/\/[^\s<>"']+/g;

/** Mail text with its addresses made clickable; everything else escaped. */
function linkedText(text: string): SafeHtml[] {
  return text.split('\n').map((line, index) => {
    const parts: (SafeHtml | string)[] = [];
    let last = 0;
    for (const match of line.matchAll(LINK)) {
      parts.push(line.slice(last, match.index), html`<a href="${match[0]}">${match[0]}</a>`);
      last = match.index + match[0].length;
    }
    parts.push(line.slice(last));
    return html`${index > 0 ? html`<br>` : ''}${parts}`;
  });
}

/** The embedded default's outbox at {auth_url}/outbox: the mail kept instead of sent, newest first. */
export function outboxPage(mails: MailOutboxRow[], limit: number): string {
  const items = mails.map(
    (mail) => html`<article>
<h2>${mail.subject}</h2>
<p>To <strong>${mail.to_address}</strong>, <time datetime="${mail.created_at}">${mail.created_at}</time></p>
<p>${linkedText(mail.text_body)}</p>
</article><hr>`,
  );
  return page(
    'Outbox',
    html`<h1>Outbox</h1>
<p>No mail server is configured (RDP_SMTP_URL), so the platform keeps its mail here instead of sending it. Anyone who can open this page reads it: do not run like this where strangers can reach the server.</p>
${mails.length === 0 ? html`<p>No mail yet.</p>` : items}
${mails.length === limit ? html`<p>The newest ${limit} messages are shown.</p>` : ''}`,
  );
}
