import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** One line of the summary that bench/run-all.ts prints: a measured ratio and the target it is judged by. */
export interface SummaryRow {
  bench: string;
  measure: string;
  ratio: string;
  target: string;
  met: boolean | undefined;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export function pct(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

export function times(value: number): string {
  return `${value.toFixed(2)}x`;
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 0)} ms`;
}

/** Quick mode (RDP_BENCH_QUICK=1 or --quick): shorter runs and a smaller big store, for development. */
export const quick = process.env.RDP_BENCH_QUICK === '1' || process.argv.includes('--quick');

export function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

export function printSummary(rows: SummaryRow[]): void {
  const header = ['bench', 'measure', 'ratio / value', 'target', 'met'];
  const cells = rows.map((row) => [
    row.bench,
    row.measure,
    row.ratio,
    row.target,
    row.met === undefined ? '-' : row.met ? 'yes' : 'NO',
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => (cell[i] as string).length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i] as number)).join('  ');
  log('');
  log(line(header));
  log(line(widths.map((width) => '-'.repeat(width))));
  for (const cell of cells) log(line(cell));
}

/** Runs a benchmark file's main when the file is executed directly; a slow number never fails the exit code. */
export function runMain(metaUrl: string, main: () => Promise<SummaryRow[]>): void {
  if (process.argv[1] && fileURLToPath(metaUrl) === path.resolve(process.argv[1])) {
    main()
      .then((rows) => printSummary(rows))
      .catch((error) => {
        console.error(error);
        process.exit(1);
      });
  }
}
