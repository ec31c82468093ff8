/** Upload progress: a bar redrawn in place on a terminal, a plain line every 10% otherwise (logs, CI). */
export class ProgressBar {
  private lastTenth = -1;
  private readonly started = Date.now();

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly out: NodeJS.WriteStream = process.stderr,
  ) {}

  update(done: number): void {
    const fraction = this.total === 0 ? 1 : Math.min(1, done / this.total);
    const rate = done / Math.max(0.001, (Date.now() - this.started) / 1000);
    if (this.out.isTTY) {
      const width = Math.max(10, Math.min(40, (this.out.columns ?? 80) - 60));
      const filled = Math.round(fraction * width);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
      this.out.write(
        `\r\x1b[K${this.label} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${megabytes(done)}/${megabytes(this.total)} ${megabytes(rate)}/s`,
      );
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth === this.lastTenth) return;
    this.lastTenth = tenth;
    this.out.write(`${this.label}: ${tenth * 10}% (${done} of ${this.total} bytes)\n`);
  }

  finish(): void {
    if (this.out.isTTY) this.out.write('\n');
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
