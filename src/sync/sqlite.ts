// The SQLite destination (the embedded default), on `libsql`: its binaries are optional packages of
// the npm registry itself. WAL journal, synchronous=FULL (a commit survives a power cut, not only a
// killed process), a busy timeout for readers such as sqlite3 or Datasette. Two runs are kept apart by
// the run lock (a file under the config dir's locks/, keyed by the database's real path), and behind
// it by the checkpoints' generations.
import { closeSync, existsSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type DatabaseCtor from "libsql";
import { LockedError, UsageError } from "../errors.js";
import { type RunLock, takeRunLock } from "../export/run-lock.js";
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
  if (code === "SQLITE_READONLY" || code === "SQLITE_CANTOPEN" || code === "SQLITE_PERM")
    return new UsageError(
      `${label} cannot be written (${(err as Error).message}).`,
      "Check the path and its permissions.",
    );
  return err;
}

function encode(v: Value): string | number | null {
  if (typeof v === "boolean") return v ? 1 : 0;
  return v;
}

/** Rows per multi-row INSERT (fewer native calls; well under SQLite's 32,766 parameters). */
const ROWS_PER_STATEMENT = 64;

export interface SqliteOpenOptions {
  path: string;
  label: string;
  /** The run-lock file (under the config dir); taken by lock(). */
  lockPath: string;
  /** For status: do not create the file when it does not exist. */
  mustExist?: boolean;
}

export async function openSqlite(o: SqliteOpenOptions): Promise<Destination> {
  const path = realDatabasePath(o.path);
  checkIsSqlite(path, o.label);
  if (o.mustExist && !existsSync(path))
    throw new UsageError(
      `There is no database at ${o.label} yet.`,
      `Run "partner-cli sync --to ${o.label}" first.`,
    );
  const { default: Database } = (await import("libsql")) as unknown as { default: typeof DatabaseCtor };
  let db: Database;
  try {
    db = new Database(path);
    db.exec("PRAGMA busy_timeout = 10000");
  } catch (err) {
    throw sqliteError(err, o.label);
  }
  return new SqliteDestination(db, o.label, o.lockPath);
}

class SqliteDestination implements Destination {
  readonly dialect: Dialect = "sqlite";
  private runLock: RunLock | undefined;
  private readonly statements = new Map<string, Statement>();
  private walSet = false;

  constructor(
    private readonly db: Database,
    readonly label: string,
    private readonly lockPath: string,
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

  async lock(): Promise<void> {
    this.runLock = await takeRunLock(this.lockPath, `The database ${this.label}`);
  }

  private assertHeld(): void {
    this.runLock?.assertHeld();
  }

  /** Journal and durability settings, set once before this run's first write. */
  private prepareWrites(): void {
    if (this.walSet) return;
    this.wrap(() => {
      this.db.exec("PRAGMA journal_mode = WAL");
      this.db.exec("PRAGMA synchronous = FULL");
    });
    this.walSet = true;
  }

  private hasTable(name: string): boolean {
    return this.rows("SELECT 1 FROM sqlite_master WHERE name = ?", [name]).length > 0;
  }

  async schemaVersion(): Promise<number> {
    if (!this.hasTable("schema_version")) return 0;
    const r = this.rows("SELECT MAX(version) FROM schema_version");
    return Number(r[0]?.[0] ?? 0);
  }

  async foreignObjects(): Promise<string[]> {
    if (this.hasTable("schema_version")) return [];
    const ours = new Set<string>([...TABLE_NAMES, ...META_TABLES, ...VIEW_NAMES]);
    return this.rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
      .map((r) => String(r[0]))
      .filter((n) => ours.has(n));
  }

  private transaction<T>(fn: () => T): T {
    return this.wrap(() => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const out = fn();
        this.db.exec("COMMIT");
        return out;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw err;
      }
    });
  }

  async migrate(now: string): Promise<number[]> {
    this.assertHeld();
    this.prepareWrites();
    const applied: number[] = [];
    this.wrap(() => this.db.exec(schemaVersionTable("sqlite")));
    const current = await this.schemaVersion();
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      this.transaction(() => {
        for (const sql of m.statements("sqlite")) this.db.exec(sql);
        this.db
          .prepare("INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)")
          .run(m.version, m.description, now);
      });
      applied.push(m.version);
    }
    return applied;
  }

  async meta(): Promise<Record<string, string>> {
    if (!this.hasTable("sync_meta")) return {};
    return Object.fromEntries(
      this.rows("SELECT key, value FROM sync_meta").map((r) => [String(r[0]), String(r[1])]),
    );
  }

  async states(): Promise<FeedState[]> {
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

  private writeSql(table: TableName, mode: TableWrite["mode"], n: number): string {
    const t = TABLES[table];
    const cols = t.columns.map((c) => c.name);
    const one = `(${cols.map(() => "?").join(", ")})`;
    const values = Array.from({ length: n }, () => one).join(", ");
    const head = `INSERT INTO ${table} (${cols.join(", ")}) VALUES ${values} ON CONFLICT (${t.primaryKey.join(", ")})`;
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
    let changed = 0;
    for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + ROWS_PER_STATEMENT);
      const params: (string | number | null)[] = [];
      for (const r of chunk) for (const v of r) params.push(encode(v));
      changed += this.stmt(this.writeSql(w.table, w.mode, chunk.length)).run(params).changes;
    }
    return changed;
  }

  async commit(
    writes: TableWrite[],
    state?: StateWrite,
    meta?: Record<string, string>,
  ): Promise<CommitResult> {
    this.assertHeld();
    this.prepareWrites();
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
    });
  }

  async existing(table: TableName, ids: string[]): Promise<Set<string>> {
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

  async count(table: TableName): Promise<number> {
    return Number(this.rows(`SELECT COUNT(*) FROM ${table}`)[0]?.[0] ?? 0);
  }

  async redemptionTimes(afterId: string, limit: number): Promise<[string, string][]> {
    return this.rows("SELECT id, redeemed_at FROM redemptions WHERE id > ? ORDER BY id LIMIT ?", [
      afterId,
      limit,
    ]).map((r) => [String(r[0]), String(r[1])]);
  }

  async setRedemptionDays(pairs: [string, string][], meta?: Record<string, string>): Promise<void> {
    this.assertHeld();
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

  async close(): Promise<void> {
    try {
      this.db.close();
    } catch {
      // closing is best effort
    }
    await this.runLock?.release();
  }
}
