import { type Comparison, formatMetres, HEAT_COLORS, rampOf } from './distance-ramp.js';
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

/** The distance legend's bar width, and about how wide a character of its 12px labels is. */
const LEGEND_BAR_PX = 240;
const LABEL_CHAR_PX = 7;

/**
 * The heat map's legend of each visible comparison layer (docs/comparisons-viewer.md), over the
 * canvas's bottom right: the ramp as the shader draws it, its ticks (0, the tolerance and
 * maxDistance; ± for M3C2's signed distances) in metres, and grey for the points beyond.
 */
export class DistanceLegend {
  readonly element: HTMLElement;

  constructor(overlay: HTMLElement) {
    this.element = document.createElement('div');
    this.element.id = 'rdp-distance-legend';
    this.element.setAttribute('aria-label', 'Distance');
    this.element.style.cssText =
      'position:absolute;right:12px;bottom:12px;background:rgba(20,22,26,.85);color:#fff;font:12px system-ui,sans-serif;' +
      `padding:6px 14px 8px;border-radius:4px;pointer-events:none;width:${LEGEND_BAR_PX}px`;
    this.element.hidden = true;
    overlay.appendChild(this.element);
  }

  /** Shows one scale per comparison (none: hidden). */
  show(comparisons: readonly Comparison[]): void {
    this.element.hidden = comparisons.length === 0;
    this.element.replaceChildren(...comparisons.map((comparison) => scaleOf(comparison)));
  }
}

function scaleOf(comparison: Comparison): HTMLElement {
  const scale = document.createElement('div');
  scale.className = 'rdp-distance-scale';
  scale.dataset.comparisonId = comparison.comparisonId;
  const signed = comparison.method === 'm3c2';
  const title = document.createElement('div');
  title.className = 'rdp-distance-title';
  title.textContent = `${signed ? 'Signed distance (M3C2)' : 'Distance (C2C)'}, m · tolerance ${formatMetres(comparison.tolerance)} m`;
  const { gradient, ticks } = rampOf(comparison);
  const bar = document.createElement('div');
  bar.className = 'rdp-distance-bar';
  bar.style.cssText = `height:10px;margin:4px 0 2px;background:${gradient}`;
  const labels = document.createElement('div');
  // A small tolerance puts its tick beside 0: a label that would overlap the one before goes a row lower.
  const rowEnds: number[] = [];
  for (const tick of ticks) {
    const text = formatMetres(tick.value);
    const centre = tick.at * LEGEND_BAR_PX;
    const half = (text.length * LABEL_CHAR_PX) / 2;
    let row = rowEnds.findIndex((end) => centre - half > end + 4);
    if (row < 0) row = rowEnds.push(0) - 1;
    rowEnds[row] = centre + half;
    const label = document.createElement('span');
    label.className = 'rdp-distance-tick';
    label.dataset.value = String(tick.value);
    label.style.cssText =
      `position:absolute;left:${(tick.at * 100).toFixed(2)}%;top:${row * 14}px;` +
      'transform:translateX(-50%);white-space:nowrap';
    label.textContent = text;
    labels.appendChild(label);
  }
  labels.style.cssText = `position:relative;height:${rowEnds.length * 14}px`;
  const beyond = document.createElement('div');
  beyond.className = 'rdp-distance-beyond';
  const swatch = document.createElement('span');
  swatch.style.cssText = `display:inline-block;width:10px;height:10px;margin-right:6px;background:${HEAT_COLORS.beyond}`;
  const limit = `${signed ? '±' : ''}${formatMetres(comparison.maxDistance)} m`;
  beyond.append(swatch, signed ? `beyond ${limit} or not computable` : `beyond ${limit}`);
  scale.append(title, bar, labels, beyond);
  return scale;
}
