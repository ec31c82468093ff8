/** Rows per statement: 50 rows of up to 20 columns stay under SQLite's oldest limit of 999 parameters. */
const MAX_ROWS = 50;

interface Waiting<Row> {
  row: Row;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: rows inserted while the previous insert is in flight wait for it and then go
 * together in one multi-row INSERT, one transaction. Under load that is one write (on SQLite, one
 * round trip to the writer thread and one WAL commit) for a whole batch instead of one per row;
 * alone, a row is written at once. Each caller is resolved only after its row has committed. When
 * a batch fails, its rows are retried one by one, so a bad row fails only its own caller.
 */
export class GroupCommit<Row> {
  private queue: Waiting<Row>[] = [];
  private flushing = false;

  constructor(private readonly insert: (rows: Row[]) => Promise<void>) {}

  add(row: Row): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        // Rows added in the same turn of the event loop join the first batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_ROWS);
      try {
        await this.insert(batch.map((waiting) => waiting.row));
        for (const waiting of batch) waiting.resolve();
      } catch {
        for (const waiting of batch) {
          await this.insert([waiting.row]).then(waiting.resolve, waiting.reject);
        }
      }
    }
    this.flushing = false;
  }
}
