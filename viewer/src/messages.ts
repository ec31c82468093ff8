/**
 * Messages shown on the page: a banner for what stops the viewer (a refused session), small
 * notes for what it shows without (a layer that failed, models shown as boxes).
 */
export class PageMessages {
  private readonly list: HTMLElement;

  constructor(overlay: HTMLElement) {
    this.list = document.createElement('div');
    this.list.id = 'rdp-messages';
    this.list.setAttribute('role', 'status');
    this.list.style.cssText =
      'position:absolute;left:12px;right:12px;top:12px;display:flex;flex-direction:column;gap:6px;align-items:flex-start;pointer-events:none';
    overlay.appendChild(this.list);
  }

  /** One message per key: a second show with the same key replaces the first. */
  show(key: string, text: string, severity: 'error' | 'warning' | 'info'): void {
    let element = this.list.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`);
    if (!element) {
      element = document.createElement('div');
      element.dataset.key = key;
      this.list.appendChild(element);
    }
    const background = severity === 'error' ? '#8b1d1d' : severity === 'warning' ? '#7a5a00' : '#2d3a4a';
    element.className = `rdp-message rdp-message-${severity}`;
    element.style.cssText = `background:${background};color:#fff;padding:8px 12px;border-radius:4px;max-width:40em;pointer-events:auto`;
    element.textContent = text;
  }

  hide(key: string): void {
    this.list.querySelector(`[data-key="${CSS.escape(key)}"]`)?.remove();
  }
}

/** The full-window notice of a refused session: the scene is removed, only this stays. */
export function showSessionRefused(
  container: HTMLElement,
  text = 'This session has expired or was revoked. Ask for a new link to see this twin again.',
): void {
  container.replaceChildren();
  const notice = document.createElement('div');
  notice.id = 'rdp-session-refused';
  notice.className = 'rdp-message rdp-message-error';
  notice.setAttribute('role', 'alert');
  notice.style.cssText =
    'position:absolute;inset:0;display:flex;align-items:center;justify-content:center;padding:24px;text-align:center';
  notice.textContent = text;
  container.appendChild(notice);
}
