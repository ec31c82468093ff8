import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type TransactionSettings,
} from 'kysely';
import { SqliteWriter } from './sqlite-writer.js';

/** Where a statement runs: a connection in this thread, or the writer's worker. */
interface Runner {
  run<R>(query: CompiledQuery): QueryResult<R> | Promise<QueryResult<R>>;
}

type RowOf = (values: unknown[]) => object;

const columnNames = (statement: SQLite.Statement) => statement.columns().map((column) => column.name);

/**
 * A function making a statement's row object from its values, by one object literal of its
 * column names (undefined for a name an object literal cannot carry).
 */
function rowMaker(names: string[]): RowOf | undefined {
  if (names.includes('__proto__')) return undefined;
  const fields = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`);
  return new Function('values', `return { ${fields.join(', ')} };`) as RowOf;
}

/**
 * A reading statement in raw mode (its rows as arrays), with the objects made here: better-sqlite3
 * makes each row object through V8's API, about 0.8 us a row of a dozen columns; the arrays and
 * one compiled object literal cost about a tenth of that (a page of 20 nodes: 24 against 40 us,
 * docs/performance.md, "The caller through a group"). The rows are the objects better-sqlite3
 * would have made. A statement SQLite prepared again after another process changed the schema
 * (an added column under `*`) is seen by its number of values and its names read again.
 */
class Reading {
  private constructor(
    readonly statement: SQLite.Statement,
    private names: string[],
    private make: RowOf,
  ) {
    statement.raw(true);
  }

  /** The statement as a Reading, or undefined when it writes or its columns need the objects of better-sqlite3. */
  static of(statement: SQLite.Statement): Reading | undefined {
    if (!statement.reader) return undefined;
    const names = columnNames(statement);
    const make = rowMaker(names);
    return make && new Reading(statement, names, make);
  }

  row(values: unknown[]): object {
    if (values.length !== this.names.length) {
      const names = columnNames(this.statement);
      this.names = names;
      this.make = rowMaker(names) ?? ((row) => Object.fromEntries(names.map((name, i) => [name, row[i]])));
    }
    return this.make(values);
  }

  all<R>(parameters: unknown[]): R[] {
    const rows = this.statement.all(parameters) as unknown[][];
    const objects = new Array<R>(rows.length);
    for (let i = 0; i < rows.length; i += 1) objects[i] = this.row(rows[i] as unknown[]) as R;
    return objects;
  }

  *iterate<R>(parameters: unknown[]): IterableIterator<R> {
    for (const values of this.statement.iterate(parameters)) yield this.row(values as unknown[]) as R;
  }
}

/** One better-sqlite3 connection in this thread, with its statements prepared once per SQL text. */
class Session implements Runner {
  private readonly statements = new Map<string, { statement: SQLite.Statement; reading: Reading | undefined }>();

  constructor(readonly database: SQLite.Database) {}

  private prepared(source: string) {
    let prepared = this.statements.get(source);
    if (!prepared) {
      const statement = this.database.prepare(source);
      prepared = { statement, reading: Reading.of(statement) };
      if (this.statements.size > 2000) this.statements.clear();
      this.statements.set(source, prepared);
    }
    return prepared;
  }

  statement(source: string): SQLite.Statement {
    return this.prepared(source).statement;
  }

  /** The rows of a reading statement, as objects. */
  rows<R>(source: string, parameters: unknown[]): R[] {
    const { statement, reading } = this.prepared(source);
    return reading ? reading.all<R>(parameters) : (statement.all(parameters) as R[]);
  }

  iterate<R>(source: string, parameters: unknown[]): IterableIterator<R> {
    const { statement, reading } = this.prepared(source);
    return reading ? reading.iterate<R>(parameters) : (statement.iterate(parameters) as IterableIterator<R>);
  }

  run<R>(query: CompiledQuery): QueryResult<R> {
    const { statement } = this.prepared(query.sql);
    const parameters = query.parameters as unknown[];
    if (statement.reader) return { rows: this.rows<R>(query.sql, parameters) };
    const { changes, lastInsertRowid } = statement.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }
}

class Mutex {
  private tail: Promise<void> = Promise.resolve();

  /** Resolves with the release function once every earlier holder has released. */
  lock(): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => held);
    return acquired;
  }
}

/** BEGIN, COMMIT, END and ROLLBACK (not ROLLBACK TO) sent as SQL through db.connection(). */
const TRANSACTION_START = /^\s*begin\b/i;
const TRANSACTION_END = /^\s*(commit|end|rollback)\b(?!\s+(transaction\s+)?to\b)/i;

/** A Kysely connection: bound to one session inside a transaction, routed per statement outside. */
class RoutedConnection implements DatabaseConnection {
  session: Runner | undefined;
  release: (() => void) | undefined;
  /** The transaction was begun by SQL text (db.connection() and sql`begin`), not by Kysely. */
  manual = false;

  constructor(private readonly driver: SqliteRoutingDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (!this.session && TRANSACTION_START.test(query.sql)) {
      // A transaction begun by hand goes to the writer like Kysely's own, and holds it until it ends.
      await this.driver.pinToWriter(this);
      this.manual = true;
    } else if (this.manual && TRANSACTION_END.test(query.sql)) {
      try {
        return await (this.session as Runner).run<R>(query);
      } finally {
        this.driver.finish(this);
      }
    }
    if (this.session) return this.session.run<R>(query);
    return this.driver.runOutsideTransaction<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (this.session) {
      yield* (await this.session.run<R>(query)).rows.map((row) => ({ rows: [row] }));
      return;
    }
    for (const row of this.driver.reader.iterate<R>(query.sql, query.parameters as unknown[])) yield { rows: [row] };
  }
}

/**
 * SQLite has one writer at a time, but with WAL any number of readers see the last committed state
 * without waiting for it. So: writes and read-write transactions take turns on the writer
 * connection, which lives in a worker thread (SqliteWriter); a read outside a transaction goes to
 * the reader connection at once; a read-only transaction gets a consistent snapshot on a third
 * connection. A long write transaction (a large subtree move) therefore holds up neither the
 * event loop nor the reads of the rest of the tree.
 */
export class SqliteRoutingDriver implements Driver {
  readonly reader: Session;
  private readonly writer: SqliteWriter;
  private readonly snapshot: Session;
  private readonly writeLock = new Mutex();
  private readonly snapshotLock = new Mutex();
  private readonly readOnly = new Map<string, boolean>();
  private readonly dataVersionStatement: SQLite.Statement;
  private readonly beginRead: SQLite.Statement;
  private readonly endRead: SQLite.Statement;

  constructor(file: string, open: () => SQLite.Database) {
    // The writer first: it puts the file in WAL mode before the readers open it.
    const first = open();
    first.close();
    this.writer = new SqliteWriter(file);
    this.reader = new Session(open());
    this.snapshot = new Session(open());
    this.reader.database.pragma('query_only = 1');
    this.snapshot.database.pragma('query_only = 1');
    // Prepared once: pragma() prepares its statement on every call.
    this.dataVersionStatement = this.reader.database.prepare('PRAGMA data_version').pluck();
    this.beginRead = this.reader.database.prepare('BEGIN');
    this.endRead = this.reader.database.prepare('COMMIT');
  }

  /**
   * The reader connection's data_version: it never writes, so the number changes whenever any
   * other connection (the writer, another process) has committed.
   */
  dataVersion(): number {
    return this.dataVersionStatement.get() as number;
  }

  /**
   * A read on the reader connection with its data_version read in the same read transaction (one
   * snapshot), in one synchronous call: no other statement of this process runs between them. A
   * deferred BEGIN takes no lock, so this costs the read's own locking and two trivial statements
   * (about 0.5 us); the version read alone costs two more lock calls to the OS, and read inside the
   * statement (`pragma_data_version()`) about 4 us, the pragma being prepared again on every run
   * (docs/performance.md, "The caller through a group").
   */
  readAtDataVersion<R>(query: CompiledQuery): { rows: R[]; version: number } {
    if (!this.reader.statement(query.sql).reader) throw new Error('readAtDataVersion runs reads only');
    this.beginRead.run();
    try {
      const version = this.dataVersionStatement.get() as number;
      return { rows: this.reader.rows<R>(query.sql, query.parameters as unknown[]), version };
    } finally {
      this.endRead.run();
    }
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  async runOutsideTransaction<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    let readOnly = this.readOnly.get(query.sql);
    if (readOnly === undefined) {
      readOnly = this.reader.statement(query.sql).readonly;
      if (this.readOnly.size > 2000) this.readOnly.clear();
      this.readOnly.set(query.sql, readOnly);
    }
    if (readOnly) return this.reader.run<R>(query);
    const release = await this.writeLock.lock();
    try {
      return await this.writer.run<R>(query);
    } finally {
      release();
    }
  }

  /**
   * Resolves once every write begun before the call has ended: the writer is taken in turn, so a
   * transaction open now has committed or rolled back by then (the webhook wake-up, docs/webhooks.md).
   */
  async writesSettled(): Promise<void> {
    const release = await this.writeLock.lock();
    release();
  }

  async pinToWriter(connection: RoutedConnection): Promise<void> {
    connection.release = await this.writeLock.lock();
    connection.session = this.writer;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const routed = connection as RoutedConnection;
    const readOnly = settings.accessMode === 'read only';
    routed.release = await (readOnly ? this.snapshotLock : this.writeLock).lock();
    routed.session = readOnly ? this.snapshot : this.writer;
    try {
      // A read-write transaction takes the write lock at its start: another process on the file
      // (a second copy, the admin command line) then waits for it (busy_timeout) instead of both
      // reading and then failing with SQLITE_BUSY when they upgrade to write.
      await routed.session.run(CompiledQuery.raw(readOnly ? 'begin' : 'begin immediate'));
    } catch (error) {
      this.finish(routed);
      throw error;
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    try {
      await routed.session?.run(CompiledQuery.raw('commit'));
    } finally {
      this.finish(routed);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    try {
      // A failed statement may have ended the transaction already (SQLite rolls back on some errors).
      await Promise.resolve(routed.session?.run(CompiledQuery.raw('rollback'))).catch(() => undefined);
    } finally {
      this.finish(routed);
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to "${name}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release "${name}"`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const routed = connection as RoutedConnection;
    // A transaction begun by hand and left open: roll it back rather than hold the writer forever.
    if (routed.manual && routed.session) await this.rollbackTransaction(routed);
  }

  async destroy(): Promise<void> {
    for (const session of [this.reader, this.snapshot]) session.database.close();
    await this.writer.close();
  }

  finish(connection: RoutedConnection): void {
    connection.manual = false;
    connection.session = undefined;
    connection.release?.();
    connection.release = undefined;
  }
}

export function sqliteRoutingDialect(driver: SqliteRoutingDriver): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
