import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

const require = createRequire(import.meta.url);
let source: Promise<string> | undefined;

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical findings on the page as it is now (WCAG 2.1 A and AA, which
 * include colour contrast). The script is evaluated through the DevTools protocol, so the page's
 * Content-Security-Policy stays as it is.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  source ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  const script = await source;
  await page.evaluate(script);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<any> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return (result.violations as any[]).map((violation) => ({
      id: violation.id as string,
      impact: violation.impact as string | null,
      help: violation.help as string,
      targets: (violation.nodes as any[]).map((node) => String(node.target)),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/**
 * No serious axe-core finding on the page at its current width, nor (unless `atTabletWidth` is
 * false) at a tablet's 768 px; the page is then put back at its width.
 */
export async function expectAccessible(page: Page, atTabletWidth = true): Promise<void> {
  expect(await seriousAxeViolations(page)).toEqual([]);
  if (!atTabletWidth) return;
  const size = page.viewportSize();
  await page.setViewportSize({ width: 768, height: 1000 });
  expect(await seriousAxeViolations(page)).toEqual([]);
  if (size) await page.setViewportSize(size);
}
