import { ASPRS_CLASSES } from './point-style.js';

/**
 * The classification colour mode's legend (docs/design/measurements.md, "Viewer tools"): the
 * ASPRS class names and colours of the codes the loaded tiles hold, over the canvas's bottom left.
 */
export class ClassificationLegend {
  readonly element: HTMLElement;

  constructor(overlay: HTMLElement) {
    this.element = document.createElement('div');
    this.element.id = 'rdp-legend';
    this.element.setAttribute('aria-label', 'Classification');
    this.element.style.cssText =
      'position:absolute;left:12px;bottom:12px;background:rgba(20,22,26,.85);color:#fff;font:12px system-ui,sans-serif;' +
      'padding:6px 10px;border-radius:4px;pointer-events:none';
    this.element.hidden = true;
    overlay.appendChild(this.element);
  }

  /** Shows the classes of `codes` (sorted), or says there is none; `visible` false hides it. */
  show(visible: boolean, codes: Iterable<number>): void {
    this.element.hidden = !visible;
    if (!visible) return;
    const present = [...codes].sort((a, b) => a - b);
    this.element.replaceChildren();
    if (present.length === 0) this.element.textContent = 'No classification in the points shown.';
    for (const code of present) {
      const known = ASPRS_CLASSES[code];
      const row = document.createElement('div');
      row.className = 'rdp-legend-class';
      row.dataset.code = String(code);
      const swatch = document.createElement('span');
      swatch.style.cssText = `display:inline-block;width:10px;height:10px;margin-right:6px;background:${known?.color ?? '#999'}`;
      row.append(swatch, `${code} ${known?.name ?? (code < 64 ? 'Reserved' : 'User definable')}`);
      this.element.appendChild(row);
    }
  }
}
