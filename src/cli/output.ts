/** A command's result: one JSON object with --json, else one `key: value` line per field. */
export function printResult(result: Record<string, unknown>, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  for (const [key, value] of Object.entries(result)) {
    process.stdout.write(`${key}: ${typeof value === 'object' ? JSON.stringify(value, null, 2) : value}\n`);
  }
}

/** Columns padded to their widest cell: `rdp ls`. */
export function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(header), ...rows.map(line)].join('\n')}\n`);
}
