// The SQLite destination (the embedded default), on `libsql`: its binaries are optional packages of
// the npm registry itself. WAL journal with synchronous=NORMAL: a commit is atomic, and a power cut
// can lose only the last commits whole, rows and checkpoint together (one transaction), which the
// next run reads again, so the copy stays exact. A busy timeout for readers such as sqlite3 or
// Datasette. Two runs are kept apart by the run lock, a file beside the database (`.NAME.lock`, so runs
// from every config dir and host sharing the file see it), and behind it by SQLite's own locking and
// the checkpoints' generations. The copy is private: a new database file is created 0600 whatever the
// umask, and SQLite gives its -wal, -shm and -journal files the database file's mode.
//
// libsql is synchronous: a commit would stop the process while it runs. In the built CLI the database
// work runs in a worker thread (this same module, started again with `workerData`), so the next page
// is received and parsed while this one is committed; the transactions are the same.
import { closeSync, existsSync, openSync, readSync, realpathSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import type DatabaseCtor from "libsql";
import { CliError, LockedError, NativeModuleError, UsageError } from "../errors.js";
import { lockFile } from "../export/checkpoint.js";
import type { HeldLock } from "../io/file-lock.js";
import { withPath } from "../io/machine-failure.js";
import { loadNative, type NativeUse } from "../io/native.js";
import { createPrivateFile, fileWriteError } from "../io/private-file.js";
import {
  type CommitResult,
  type Destination,
  type FeedState,
  lastPerKey,
  movedUnderUs,
  type StateWrite,
  type TableWrite,
} from "./destination.js";
import type { Value } from "./rows.js";
import {
  type Dialect,
  MIGRATIONS,
  META_TABLES,
  schemaVersionTable,
  TABLE_NAMES,
  TABLES,
  type TableName,
  VIEW_NAMES,
  conflictKey,
  secondaryIndexes,
  sqlitePkIndex,
} from "./schema.js";

type Database = DatabaseCtor.Database;
type Statement = DatabaseCtor.Statement<unknown[]>;

const SQLITE_HEADER = "SQLite format 3\u0000";

/** The absolute path the database file has (or will have): its directory resolved through symlinks. */
export function realDatabasePath(path: string): string {
  const dir = dirname(path);
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new UsageError(`The directory of the database, ${dir}, does not exist.`, "Create it first.");
  try {
    return realpathSync(path);
  } catch {
    return join(realpathSync(dir), basename(path));
  }
}

/** Refuses a file that is there but is not a SQLite database (before anything opens it). */
function checkIsSqlite(path: string, label: string): void {
  if (!existsSync(path)) return;
  const st = statSync(path);
  if (st.isDirectory()) throw new UsageError(`${label} is a directory, not a database file.`);
  if (st.size === 0) return;
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(16);
    readSync(fd, buf, 0, 16, 0);
    if (buf.toString("latin1") !== SQLITE_HEADER)
      throw new UsageError(
        `${label} exists and is not a SQLite database; nothing was written to it.`,
        "Name a new file (it is created) or an existing partner-cli database.",
      );
  } finally {
    closeSync(fd);
  }
}

function sqliteError(err: unknown, label: string): unknown {
  const code = (err as { code?: string }).code ?? "";
  if (code === "SQLITE_BUSY" || code === "SQLITE_LOCKED")
    return new LockedError(
      `${label} is locked by another program writing to it.`,
      "Run again when the other program has finished (a reader such as sqlite3 holding a write transaction open blocks syncs).",
    );
  if (code === "SQLITE_NOTADB")
    return new UsageError(`${label} is not a SQLite database; nothing was written to it.`);
  // Full, read-only, forbidden, I/O errors: the machine's failures, classed (exit 10) by `sync`
  // through src/io/machine-failure.ts with their code kept.
  return err;
}

function encode(v: Value): string | number | null {
  if (typeof v === "boolean") return v ? 1 : 0;
  return v;
}

/** Rows per multi-row INSERT (fewer native calls; well under SQLite's 32,766 parameters). */
const ROWS_PER_STATEMENT = 64;
/** A transaction holding pages is committed once it has this many rows, or is this old. */
const GROUP_ROWS = 20_000;
const GROUP_MS = 1_000;

export interface SqliteOpenOptions {
  path: string;
  label: string;
  /** For status: do not create the file when it does not exist. */
  mustExist?: boolean;
  /** For sync --dry-run: open it read-only (no checkpoint of a WAL left behind, no write of any kind). */
  readonly?: boolean;
  /** Run the database work in a worker thread (default: when running from the built .js). */
  worker?: boolean;
}

/** libsql, for the SQLite copy (src/io/native.ts says this when it does not load). */
const LIBSQL_FOR_SYNC: NativeUse = {
  neededFor: "copying into SQLite (sync --to sqlite:FILE)",
  without:
    "sync --to postgres://..., redemptions export and events sync into files, and every other command against your service",
};

async function openCore(path: string, label: string, readonly = false): Promise<SqliteCore> {
  const { default: Database } = (await loadNative(
    "libsql",
    () => import("libsql"),
    LIBSQL_FOR_SYNC,
  )) as unknown as {
    default: typeof DatabaseCtor;
  };
  try {
    const db = readonly ? new Database(path, { readonly: true }) : new Database(path);
    db.exec("PRAGMA busy_timeout = 10000");
    return new SqliteCore(db, label);
  } catch (err) {
    throw sqliteError(err, label);
  }
}

type CoreMethod =
  | "schemaVersion"
  | "foreignObjects"
  | "migrate"
  | "meta"
  | "states"
  | "commit"
  | "existing"
  | "count"
  | "redemptionTimes"
  | "setRedemptionDays"
  | "beginLoad"
  | "finishLoad"
  | "flush"
  | "close";

interface WireError {
  kind: string;
  message: string;
  hint?: string | undefined;
  code?: string | undefined;
}

function toWire(err: unknown): WireError {
  const e = err as Error & { hint?: string; code?: string };
  return {
    kind: e?.constructor?.name ?? "Error",
    message: e?.message ?? String(err),
    hint: e?.hint,
    code: e?.code,
  };
}

function fromWire(w: WireError): Error {
  if (w.kind === "LockedError") return new LockedError(w.message, w.hint);
  if (w.kind === "UsageError") return new UsageError(w.message, w.hint);
  if (w.kind === "NativeModuleError") return new NativeModuleError(w.message, w.hint ?? "", "libsql");
  if (w.kind.endsWith("Error") && w.hint !== undefined) return new CliError(w.message, w.hint);
  const e = new Error(w.message);
  (e as { code?: string }).code = w.code;
  return e;
}

/** The worker thread's side: opens the database, then runs each call in arrival order. */
if (!isMainThread && parentPort && (workerData as { partnerSqlite?: unknown })?.partnerSqlite) {
  const port = parentPort;
  const o = (workerData as { partnerSqlite: { path: string; label: string; readonly: boolean } })
    .partnerSqlite;
  openCore(o.path, o.label, o.readonly).then(
    (core) => {
      port.postMessage({ id: 0, ok: true });
      port.on("message", (m: { id: number; method: CoreMethod; args: unknown[] }) => {
        try {
          const value = (core[m.method] as (...a: unknown[]) => unknown).apply(core, m.args);
          port.postMessage({ id: m.id, ok: true, value });
        } catch (err) {
          port.postMessage({ id: m.id, ok: false, error: toWire(err) });
        }
        if (m.method === "close") port.close();
      });
    },
    (err) => port.postMessage({ id: 0, ok: false, error: toWire(err) }),
  );
}

type Call = <T>(method: CoreMethod, ...args: unknown[]) => Promise<T>;

async function workerCore(
  path: string,
  label: string,
  readonly: boolean,
): Promise<{ call: Call; end: () => Promise<void> }> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { partnerSqlite: { path, label, readonly } },
    // It holds a page or two at a time: a small heap keeps the process's memory flat.
    resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 },
  });
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let next = 1;
  let dead: Error | undefined;
  const fail = (err: Error) => {
    dead = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("message", (m: { id: number; ok: boolean; value?: unknown; error?: WireError }) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.value);
    else p.reject(fromWire(m.error!));
  });
  worker.on("error", (err) => fail(err));
  worker.on("exit", (code) => fail(new Error(`The SQLite worker stopped (exit code ${code}).`)));
  const call: Call = (method, ...args) => {
    if (dead) return Promise.reject(dead);
    const id = method === ("open" as CoreMethod) ? 0 : next++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      if (id !== 0) worker.postMessage({ id, method, args });
    });
  };
  try {
    await call("open" as CoreMethod);
  } catch (err) {
    await worker.terminate().catch(() => {});
    throw err;
  }
  return {
    call,
    end: async () => {
      await worker.terminate().catch(() => {});
    },
  };
}

export async function openSqlite(o: SqliteOpenOptions): Promise<Destination> {
  const path = realDatabasePath(o.path);
  checkIsSqlite(path, o.label);
  if (o.mustExist && !existsSync(path))
    throw new UsageError(
      `There is no database at ${o.label} yet.`,
      `Run "partner-cli sync --to ${o.label}" first.`,
    );
  const created = !o.mustExist && (await createDatabaseFile(path));
  try {
    return await openDestinationCore(path, o);
  } catch (err) {
    // Nothing was written (libsql did not load, or could not open it): the empty file made for it goes.
    if (created && statSync(path, { throwIfNoEntry: false })?.size === 0) rmSync(path, { force: true });
    throw err;
  }
}

async function openDestinationCore(path: string, o: SqliteOpenOptions): Promise<Destination> {
  // A worker runs this module's own file: only the built .js can be started that way.
  const worker =
    o.worker ?? (import.meta.url.endsWith(".js") && process.env.PARTNER_SYNC_SQLITE_WORKER !== "0");
  if (worker) {
    const w = await workerCore(path, o.label, Boolean(o.readonly));
    return new SqliteDestination(o.label, path, w.call, w.end);
  }
  const core = await openCore(path, o.label, o.readonly);
  const call: Call = async (method, ...args) =>
    (core[method] as (...a: unknown[]) => unknown).apply(core, args) as never;
  return new SqliteDestination(o.label, path, call, async () => {});
}

/**
 * A new database starts as an empty file made 0600 (set with fchmod, so the umask cannot widen it);
 * SQLite opens an empty file as a new database and creates its -wal, -shm and -journal files with
 * the database file's mode. An existing file keeps its mode (someone may have shared it on purpose).
 */
async function createDatabaseFile(path: string): Promise<boolean> {
  try {
    await (await createPrivateFile(path)).close();
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    // A missing folder is the operator's path (exit 2); a full, read-only or forbidden disk is the machine's (exit 10).
    throw code === "ENOENT" ? fileWriteError(path, err) : withPath(err, path);
  }
}

/** The Destination: the run lock here, the database work in the core (worker thread or this one). */
class SqliteDestination implements Destination {
  readonly dialect: Dialect = "sqlite";
  private runLock: HeldLock | undefined;

  constructor(
    readonly label: string,
    /** The database file's real path: the run lock is the file `.NAME.lock` beside it. */
    private readonly path: string,
    private readonly call: Call,
    private readonly end: () => Promise<void>,
  ) {}

  async lock(): Promise<void> {
    // The same lock as every destination's (src/export/checkpoint.ts): beside the file.
    this.runLock = await lockFile(this.path, `The database ${this.label}`);
  }

  /** Before every write: the lock must still be this run's. */
  private held(): void {
    this.runLock?.assertHeld();
  }

  schemaVersion(): Promise<number> {
    return this.call("schemaVersion");
  }
  foreignObjects(): Promise<string[]> {
    return this.call("foreignObjects");
  }
  migrate(now: string): Promise<number[]> {
    this.held();
    return this.call("migrate", now);
  }
  meta(): Promise<Record<string, string>> {
    return this.call("meta");
  }
  states(): Promise<FeedState[]> {
    return this.call("states");
  }
  commit(writes: TableWrite[], state?: StateWrite, meta?: Record<string, string>): Promise<CommitResult> {
    this.held();
    return this.call("commit", writes, state, meta);
  }
  existing(table: TableName, ids: string[]): Promise<Set<string>> {
    return this.call("existing", table, ids);
  }
  count(table: TableName): Promise<number> {
    return this.call("count", table);
  }
  redemptionTimes(afterId: string, limit: number): Promise<[string, string][]> {
    return this.call("redemptionTimes", afterId, limit);
  }
  setRedemptionDays(pairs: [string, string][], meta?: Record<string, string>): Promise<void> {
    this.held();
    return this.call("setRedemptionDays", pairs, meta);
  }
  beginLoad(table: TableName): Promise<void> {
    this.held();
    return this.call("beginLoad", table);
  }
  finishLoad(table: TableName): Promise<void> {
    this.held();
    return this.call("finishLoad", table);
  }
  flush(): Promise<void> {
    return this.call("flush");
  }
  async close(): Promise<void> {
    await this.call("close").catch(() => {});
    await this.end();
    await this.runLock?.release();
  }
}

/** The database work, synchronous (libsql is): run in a worker thread, or in this one. */
class SqliteCore {
  private readonly statements = new Map<string, Statement>();
  private walSet = false;
  private group: { rows: number; since: number } | undefined;

  constructor(
    private readonly db: Database,
    readonly label: string,
  ) {}

  private wrap<T>(fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw sqliteError(err, this.label);
    }
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  private rows(sql: string, params: unknown[] = []): unknown[][] {
    return this.wrap(
      () =>
        this.stmt(sql)
          .raw(true)
          .all(...params) as unknown[][],
    );
  }

  /** Journal and durability settings, set once before this run's first write. */
  private prepareWrites(): void {
    if (this.walSet) return;
    this.wrap(() => {
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = NORMAL");
      // Random ids make index inserts touch pages all over the file: keep more of it in memory.
      this.db.exec("PRAGMA cache_size = -8192");
      // Sorts (building an index after a first load) spill to temporary files, not memory.
      this.db.exec("PRAGMA temp_store = FILE");
    });
    this.walSet = true;
  }

  private hasTable(name: string): boolean {
    return this.rows("SELECT 1 FROM sqlite_master WHERE name = ?", [name]).length > 0;
  }

  schemaVersion(): number {
    if (!this.hasTable("schema_version")) return 0;
    const r = this.rows("SELECT MAX(version) FROM schema_version");
    return Number(r[0]?.[0] ?? 0);
  }

  foreignObjects(): string[] {
    if (this.hasTable("schema_version")) return [];
    const ours = new Set<string>([...TABLE_NAMES, ...META_TABLES, ...VIEW_NAMES]);
    return this.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
      .map((r) => String(r[0]))
      .filter((n) => ours.has(n));
  }

  /**
   * Runs fn in a transaction. With `rows`, consecutive calls share one transaction until it holds
   * GROUP_ROWS rows or is GROUP_MS old (or flush()): each call's rows and checkpoint are still in one
   * transaction, and far fewer index pages are written per row. A failure rolls the whole group back:
   * rows and checkpoints together, read again by the next run.
   */
  private transaction<T>(fn: () => T, rows?: number): T {
    return this.wrap(() => {
      if (!this.group) {
        this.db.exec("BEGIN IMMEDIATE");
        this.group = { rows: 0, since: Date.now() };
      }
      try {
        const out = fn();
        this.group.rows += rows ?? 0;
        if (rows === undefined || this.group.rows >= GROUP_ROWS || Date.now() - this.group.since >= GROUP_MS)
          this.commitGroup();
        return out;
      } catch (err) {
        this.group = undefined;
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw err;
      }
    });
  }

  private commitGroup(): void {
    this.group = undefined;
    this.db.exec("COMMIT");
  }

  /** Commits the open group of pages, if any. */
  flush(): void {
    if (this.group) this.wrap(() => this.commitGroup());
  }

  /**
   * A first load (empty table) goes without the primary-key index and the secondary indexes: a
   * million random ids inserted into an index one by one cost more than everything else together;
   * finishLoad builds them, each in one sort. Rows stay unique meanwhile through the feed key. An
   * interrupted first load leaves the indexes out; the next run carries on the same way.
   */
  beginLoad(table: TableName): void {
    const t = TABLES[table];
    if (!t.sqliteFeedKey) return;
    this.flush();
    const indexed = this.rows("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [
      `${table}_pk`,
    ]);
    if (indexed.length === 0) return;
    if (this.rows(`SELECT 1 FROM ${table} LIMIT 1`).length > 0) return;
    this.prepareWrites();
    this.wrap(() => {
      this.db.exec(`DROP INDEX IF EXISTS ${table}_pk`);
      for (const ix of t.indexes) this.db.exec(`DROP INDEX IF EXISTS ${ix.name}`);
    });
  }

  finishLoad(table: TableName): void {
    const t = TABLES[table];
    if (!t.sqliteFeedKey) return;
    this.flush();
    this.wrap(() => {
      for (const sql of [sqlitePkIndex(t), ...secondaryIndexes(t)]) this.db.exec(sql);
    });
  }

  migrate(now: string): number[] {
    this.flush();
    this.prepareWrites();
    const applied: number[] = [];
    this.wrap(() => this.db.exec(schemaVersionTable("sqlite")));
    const current = this.schemaVersion();
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      // Read again under the write lock: another run (another config dir, so another lock file)
      // may have applied it between the read above and this transaction.
      const done = this.transaction(() => {
        if (this.schemaVersion() >= m.version) return false;
        for (const sql of m.statements("sqlite")) this.db.exec(sql);
        this.db
          .prepare("INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)")
          .run(m.version, m.description, now);
        return true;
      });
      if (done) applied.push(m.version);
    }
    return applied;
  }

  meta(): Record<string, string> {
    if (!this.hasTable("sync_meta")) return {};
    return Object.fromEntries(
      this.rows("SELECT key, value FROM sync_meta").map((r) => [String(r[0]), String(r[1])]),
    );
  }

  states(): FeedState[] {
    if (!this.hasTable("sync_state")) return [];
    return this.rows(
      "SELECT feed, cursor, skip_ids, generation, items, last_synced_at, last_completed_at, since FROM sync_state",
    ).map((r) => ({
      feed: String(r[0]),
      cursor: (r[1] as string | null) ?? null,
      skipIds: JSON.parse(String(r[2])) as string[],
      generation: Number(r[3]),
      items: Number(r[4]),
      lastSyncedAt: (r[5] as string | null) ?? null,
      lastCompletedAt: (r[6] as string | null) ?? null,
      since: (r[7] as string | null) ?? null,
    }));
  }

  /**
   * The INSERT for a chunk of rows. Binding a value is the costly part of libsql, so a column whose
   * value is the same in every row of the chunk (a page's campaign, offer and brand, the nulls) is
   * bound once, or written as NULL; only the columns that differ are bound per row.
   * shape: per column "r" (per row), "c" (one value), "n" (null).
   */
  private writeSql(table: TableName, mode: TableWrite["mode"], n: number, shape: string): string {
    const t = TABLES[table];
    const cols = t.columns.map((c) => c.name);
    const perRow = [...shape].filter((k) => k === "r").length;
    let p = 0;
    const consts = [...shape].filter((k) => k === "c").length;
    let rowCol = 0;
    const select = cols.map((_, j) => {
      if (shape[j] === "n") return "NULL";
      if (shape[j] === "c") return `?${++p}`;
      return `column${++rowCol}`;
    });
    let source: string;
    if (perRow === 0) {
      source = "";
    } else {
      let q = consts;
      const tuples = Array.from(
        { length: n },
        () => `(${Array.from({ length: perRow }, () => `?${++q}`).join(", ")})`,
      );
      source = ` FROM (VALUES ${tuples.join(", ")})`;
    }
    const head = `INSERT INTO ${table} (${cols.join(", ")}) SELECT ${select.join(", ")}${source} WHERE true ON CONFLICT (${conflictKey(t, "sqlite").join(", ")})`;
    if (mode === "insert") return `${head} DO NOTHING`;
    const rest = cols.filter((c) => !t.primaryKey.includes(c));
    return `${head} DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(", ")} WHERE (${rest
      .map((c) => `${table}.${c}`)
      .join(", ")}) IS NOT (${rest.map((c) => `excluded.${c}`).join(", ")})`;
  }

  private write(w: TableWrite): number {
    const t = TABLES[w.table];
    const keyIdx = t.primaryKey.map((k) => t.columns.findIndex((c) => c.name === k));
    const rows = lastPerKey(w.rows, keyIdx);
    const width = t.columns.length;
    let changed = 0;
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      let shape = "";
      for (let j = 0; j < width; j++) {
        const v0 = encode(chunk[0]![j] ?? null);
        let same = true;
        for (let k = 1; k < chunk.length && same; k++) same = encode(chunk[k]![j] ?? null) === v0;
        shape += !same ? "r" : v0 === null ? "n" : "c";
      }
      const params: (string | number | null)[] = [];
      for (let j = 0; j < width; j++) if (shape[j] === "c") params.push(encode(chunk[0]![j] ?? null));
      for (const r of chunk)
        for (let j = 0; j < width; j++) if (shape[j] === "r") params.push(encode(r[j] ?? null));
      changed += this.stmt(this.writeSql(w.table, w.mode, chunk.length, shape)).run(params).changes;
    }
    return changed;
  }

  commit(writes: TableWrite[], state?: StateWrite, meta?: Record<string, string>): CommitResult {
    this.prepareWrites();
    const rows = writes.reduce((n, w) => n + w.rows.length, 0);
    return this.transaction(() => {
      let generation = 0;
      const changed = writes.map((w) => this.write(w));
      if (state) {
        // Checked after the rows are written: a refusal here takes them back with it.
        const cur = this.stmt("SELECT generation FROM sync_state WHERE feed = ?").raw(true).get(state.feed) as
          | unknown[]
          | undefined;
        if (Number(cur?.[0] ?? 0) !== state.expect) throw movedUnderUs(state.feed, this.label);
        generation = state.expect + 1;
        this.stmt(
          `INSERT INTO sync_state (feed, cursor, skip_ids, generation, items, last_synced_at, last_completed_at, since)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (feed) DO UPDATE SET cursor = excluded.cursor, skip_ids = excluded.skip_ids,
             generation = excluded.generation, items = excluded.items, last_synced_at = excluded.last_synced_at,
             last_completed_at = excluded.last_completed_at, since = excluded.since`,
        ).run(
          state.feed,
          state.cursor,
          JSON.stringify(state.skipIds),
          generation,
          state.items,
          state.lastSyncedAt,
          state.lastCompletedAt,
          state.since,
        );
      }
      for (const [k, v] of Object.entries(meta ?? {}))
        this.stmt(
          "INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        ).run(k, v);
      return { changed, generation };
    }, rows);
  }

  existing(table: TableName, ids: string[]): Set<string> {
    const pk = TABLES[table].primaryKey[0]!;
    const out = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      for (const r of this.rows(
        `SELECT ${pk} FROM ${table} WHERE ${pk} IN (${chunk.map(() => "?").join(", ")})`,
        chunk,
      ))
        out.add(String(r[0]));
    }
    return out;
  }

  count(table: TableName): number {
    return Number(this.rows(`SELECT COUNT(*) FROM ${table}`)[0]?.[0] ?? 0);
  }

  redemptionTimes(afterId: string, limit: number): [string, string][] {
    return this.rows("SELECT id, redeemed_at FROM redemptions WHERE id > ? ORDER BY id LIMIT ?", [
      afterId,
      limit,
    ]).map((r) => [String(r[0]), String(r[1])]);
  }

  setRedemptionDays(pairs: [string, string][], meta?: Record<string, string>): void {
    this.prepareWrites();
    this.transaction(() => {
      const s = this.stmt("UPDATE redemptions SET redeemed_day = ? WHERE id = ?");
      for (const [id, day] of pairs) s.run(day, id);
      for (const [k, v] of Object.entries(meta ?? {}))
        this.stmt(
          "INSERT INTO sync_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        ).run(k, v);
    });
  }

  close(): void {
    try {
      this.flush();
    } catch {
      // not committed: the next run reads those pages again
    }
    try {
      this.db.close();
    } catch {
      // closing is best effort
    }
  }
}
