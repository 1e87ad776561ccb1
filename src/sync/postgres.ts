// The PostgreSQL destination, on `pg` and `pg-copy-streams`: the database a team shares and BI tools
// read. One connection per run. Each page is COPYed into a temporary staging table and moved into its
// table with INSERT ... ON CONFLICT, inside the transaction that also saves the checkpoint. Several
// hosts may run the same cron job: a session advisory lock (keyed by the schema) lets one through and
// the others exit 9; the server releases it when the holder's connection ends, a killed one included.
import { createHash } from "node:crypto";
import type * as PgNs from "pg";
import { ConfigError, LockedError } from "../errors.js";
import { ConnectionLost } from "./connection.js";
import {
  type CommitResult,
  type Destination,
  type FeedState,
  lastPerKey,
  movedUnderUs,
  type StateWrite,
  type TableWrite,
} from "./destination.js";
import type { Row, Value } from "./rows.js";
import {
  type Column,
  type Dialect,
  MIGRATIONS,
  META_TABLES,
  schemaVersionTable,
  TABLE_NAMES,
  TABLES,
  type TableName,
  VIEW_NAMES,
} from "./schema.js";
import { scrub, type SyncTarget } from "./target.js";
import { systemClock } from "../clock.js";

type PgTarget = Extract<SyncTarget, { kind: "postgres" }>;

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
]);

/** A driver error as one of ours, its text scrubbed of the password. */
function pgError(err: unknown, t: PgTarget): unknown {
  const e = err as { code?: string; message?: string };
  const msg = scrub(e?.message ?? String(err), t);
  const code = e?.code ?? "";
  // --- connection lost or TLS refused (error classification; see src/sync/connection.ts) ---
  // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection_exception.
  if (
    NETWORK_CODES.has(code) ||
    /^(57P0[123]|08...)$/.test(code) ||
    /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed and is not queryable/i.test(
      msg,
    )
  )
    return new ConnectionLost(
      t.label,
      msg,
      // Reached: anything but a server that could not be reached at all (refused, unknown, timed out).
      !["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"].includes(code) &&
        !/connection timeout|timeout expired/i.test(msg),
    );
  if (/does not support SSL/i.test(msg))
    return new ConfigError(
      `PostgreSQL at ${t.label} does not accept TLS, and the URL requires it (sslmode): ${msg}. Nothing was written.`,
      "Enable TLS (ssl = on) on the server, or, on a network you trust, drop sslmode=require from the URL (or use sslmode=prefer).",
    );
  // --- end of connection classification ---
  if (code.startsWith("28") || code === "3D000" || code === "42501" || /password/i.test(msg))
    return new ConfigError(
      `PostgreSQL at ${t.label} refused this connection: ${msg}.`,
      "Check the user, password (in the URL or PGPASSWORD), database name and the user's privileges.",
    );
  if (err instanceof Error) {
    if (msg !== err.message) {
      const clean = Object.assign(new Error(msg), { code: e.code });
      clean.stack = scrub(err.stack ?? "", t);
      return clean;
    }
    return err;
  }
  return new Error(msg);
}

/** COPY text format: \N for null, t/f, and backslash escapes for the characters that delimit. */
function copyValue(v: Value, col: Column): string {
  if (v === null) return "\\N";
  if (typeof v === "boolean") return v ? "t" : "f";
  if (typeof v === "number") return String(v);
  if (col.type === "bool") return v ? "t" : "f";
  return v.replace(/[\\\t\n\r]/g, (ch) =>
    ch === "\\" ? "\\\\" : ch === "\t" ? "\\t" : ch === "\n" ? "\\n" : "\\r",
  );
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** The advisory-lock key of a schema: 64 bits of a hash, as a signed bigint. */
function advisoryKey(schema: string): string {
  const h = createHash("sha256").update(`partner-cli sync|${schema}`).digest();
  return h.readBigInt64BE(0).toString();
}

const iso = (v: unknown): string | null =>
  v === null || v === undefined ? null : v instanceof Date ? v.toISOString() : String(v);

export async function openPostgres(t: PgTarget): Promise<Destination> {
  const pg = ((await import("pg")) as unknown as { default: typeof PgNs }).default;
  const copy = (await import("pg-copy-streams")) as unknown as {
    default?: { from: typeof import("pg-copy-streams").from };
    from?: typeof import("pg-copy-streams").from;
  };
  const copyFrom = copy.from ?? copy.default!.from;
  const client = new pg.Client({
    connectionString: t.url,
    application_name: "partner-cli sync",
    connectionTimeoutMillis: 15_000,
  });
  // An idle connection's error (server restart) must not crash the process; the next query reports it.
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query(`SET search_path TO ${quoteIdent(t.schema)}`);
    // A commit need not wait for its WAL flush: a server crash can lose only the last commits whole,
    // rows and checkpoint together (one transaction), and the next run reads them again. The copy
    // stays exact; only the latest pages may have to be re-read.
    await client.query("SET synchronous_commit = off");
  } catch (err) {
    await client.end().catch(() => {});
    throw pgError(err, t);
  }
  return new PostgresDestination(client, t, copyFrom);
}

class PostgresDestination implements Destination {
  readonly dialect: Dialect = "postgres";
  readonly label: string;
  private readonly staged = new Set<TableName>();
  private readonly loading = new Set<TableName>();
  private locked = false;

  constructor(
    private readonly client: PgNs.Client,
    private readonly t: PgTarget,
    private readonly copyFrom: typeof import("pg-copy-streams").from,
  ) {
    this.label = t.label;
  }

  private async q(sql: string, params: unknown[] = []): Promise<PgNs.QueryResult> {
    try {
      return await this.client.query(sql, params);
    } catch (err) {
      throw pgError(err, this.t);
    }
  }

  async lock(): Promise<void> {
    // A run killed a moment ago holds the lock until its server process notices the closed
    // connection (after the statement it was running): ask a few times over two seconds.
    let ok = false;
    for (let attempt = 0; attempt < 10 && !ok; attempt++) {
      if (attempt) await systemClock.sleep(200);
      const r = await this.q("SELECT pg_try_advisory_lock($1::bigint) AS ok", [advisoryKey(this.t.schema)]);
      ok = Boolean(r.rows[0]?.ok);
    }
    if (!ok)
      throw new LockedError(
        `The copy in ${this.label} (schema ${this.t.schema}) is being synced by another partner-cli run.`,
        "Two runs would write the same rows twice; this one stops. Wait for the other run to finish.",
      );
    this.locked = true;
  }

  private async relation(name: string): Promise<string | null> {
    const r = await this.q("SELECT to_regclass($1) AS rel", [
      `${quoteIdent(this.t.schema)}.${quoteIdent(name)}`,
    ]);
    return (r.rows[0]?.rel as string | null) ?? null;
  }

  async schemaVersion(): Promise<number> {
    if (!(await this.relation("schema_version"))) return 0;
    const r = await this.q("SELECT MAX(version) AS v FROM schema_version");
    return Number(r.rows[0]?.v ?? 0);
  }

  async foreignObjects(): Promise<string[]> {
    if (await this.relation("schema_version")) return [];
    const ours = [...TABLE_NAMES, ...META_TABLES, ...VIEW_NAMES];
    const r = await this.q(
      "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = ANY($2)",
      [this.t.schema, ours],
    );
    return r.rows.map((x) => String(x.name));
  }

  private async transaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.q("BEGIN");
    try {
      const out = await fn();
      await this.q("COMMIT");
      return out;
    } catch (err) {
      await this.client.query("ROLLBACK").catch(() => {});
      throw err;
    }
  }

  async migrate(now: string): Promise<number[]> {
    if (!this.locked) throw new Error("migrate before lock");
    await this.q(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(this.t.schema)}`);
    await this.q(schemaVersionTable("postgres"));
    const current = await this.schemaVersion();
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      await this.transaction(async () => {
        for (const sql of m.statements("postgres")) await this.q(sql);
        await this.q("INSERT INTO schema_version (version, description, applied_at) VALUES ($1, $2, $3)", [
          m.version,
          m.description,
          now,
        ]);
      });
      applied.push(m.version);
    }
    return applied;
  }

  async meta(): Promise<Record<string, string>> {
    if (!(await this.relation("sync_meta"))) return {};
    const r = await this.q("SELECT key, value FROM sync_meta");
    return Object.fromEntries(r.rows.map((x) => [String(x.key), String(x.value)]));
  }

  async states(): Promise<FeedState[]> {
    if (!(await this.relation("sync_state"))) return [];
    const r = await this.q(
      "SELECT feed, cursor, skip_ids, generation, items, last_synced_at, last_completed_at, since FROM sync_state",
    );
    return r.rows.map((x) => ({
      feed: String(x.feed),
      cursor: x.cursor ?? null,
      skipIds: JSON.parse(String(x.skip_ids)) as string[],
      generation: Number(x.generation),
      items: Number(x.items),
      lastSyncedAt: iso(x.last_synced_at),
      lastCompletedAt: iso(x.last_completed_at),
      since: iso(x.since),
    }));
  }

  /** The staging table of a table: temporary, emptied at every commit (created outside transactions). */
  private async stage(table: TableName): Promise<string> {
    const name = `partner_stage_${table}`;
    if (!this.staged.has(table)) {
      await this.q(
        `CREATE TEMP TABLE IF NOT EXISTS ${name} (LIKE ${quoteIdent(this.t.schema)}.${table}) ON COMMIT DELETE ROWS`,
      );
      this.staged.add(table);
    }
    return name;
  }

  private async copyRows(stage: string, cols: readonly Column[], rows: Row[]): Promise<void> {
    let text = "";
    for (const r of rows) {
      let line = "";
      for (let i = 0; i < cols.length; i++) line += (i ? "\t" : "") + copyValue(r[i] ?? null, cols[i]!);
      text += `${line}\n`;
    }
    const stream = this.client.query(
      this.copyFrom(`COPY ${stage} (${cols.map((c) => c.name).join(", ")}) FROM STDIN`),
    );
    try {
      await new Promise<void>((resolve, reject) => {
        stream.on("finish", resolve);
        stream.on("error", reject);
        stream.end(text);
      });
    } catch (err) {
      throw pgError(err, this.t);
    }
  }

  /** INSERT ... SELECT from the staging table: upsert (only rows that differ) or insert-missing. */
  private upsertSql(table: TableName, mode: TableWrite["mode"], stage: string): string {
    const t = TABLES[table];
    const cols = t.columns.map((c) => c.name);
    const rest = cols.filter((c) => !t.primaryKey.includes(c));
    const head = `INSERT INTO ${table} AS t (${cols.join(", ")}) SELECT ${cols.join(", ")} FROM ${stage} ON CONFLICT (${t.primaryKey.join(", ")})`;
    return mode === "insert"
      ? `${head} DO NOTHING`
      : `${head} DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(", ")} WHERE (${rest
          .map((c) => `t.${c}`)
          .join(", ")}) IS DISTINCT FROM (${rest.map((c) => `EXCLUDED.${c}`).join(", ")})`;
  }

  /**
   * One transaction: each write is COPYed into its staging table, then ONE statement moves every
   * staged page into its table and saves the checkpoint, on the condition that the checkpoint still
   * has the generation this run read (otherwise nothing is saved: a refusal takes the rows back).
   * Four round trips per page: BEGIN, COPY, the statement, COMMIT.
   */
  async commit(
    writes: TableWrite[],
    state?: StateWrite,
    meta?: Record<string, string>,
  ): Promise<CommitResult> {
    // One write per table (pages rarely name a table twice; when they do, the rows are merged).
    const merged = new Map<TableName, TableWrite>();
    for (const w of writes) {
      const m = merged.get(w.table);
      merged.set(w.table, m ? { ...m, rows: [...m.rows, ...w.rows] } : { ...w, rows: [...w.rows] });
    }
    const list = [...merged.values()]
      .map((w) => {
        const t = TABLES[w.table];
        const keyIdx = t.primaryKey.map((k) => t.columns.findIndex((c) => c.name === k));
        return { ...w, rows: lastPerKey(w.rows, keyIdx) };
      })
      .filter((w) => w.rows.length > 0);
    // A first load COPYs straight into its table (the primary key still refuses a repeated id: then
    // the page is written again the usual way, and so is the rest of the load).
    const direct = list.filter((w) => w.mode === "upsert" && this.loading.has(w.table));
    const staged = list.filter((w) => !direct.includes(w));
    const stages = new Map<TableName, string>();
    for (const w of staged) stages.set(w.table, await this.stage(w.table));
    try {
      return await this.commitPage(writes, list, direct, staged, stages, state, meta);
    } catch (err) {
      if (direct.length === 0 || (err as { code?: string }).code !== "23505") throw err;
      for (const w of direct) this.loading.delete(w.table);
      return this.commit(writes, state, meta);
    }
  }

  private async commitPage(
    writes: TableWrite[],
    list: TableWrite[],
    direct: TableWrite[],
    staged: TableWrite[],
    stages: Map<TableName, string>,
    state: StateWrite | undefined,
    meta: Record<string, string> | undefined,
  ): Promise<CommitResult> {
    return this.transaction(async () => {
      for (const w of direct) await this.copyRows(w.table, TABLES[w.table].columns, w.rows);
      for (const w of staged) await this.copyRows(stages.get(w.table)!, TABLES[w.table].columns, w.rows);
      const ctes = staged.map(
        (w, i) => `w${i} AS (${this.upsertSql(w.table, w.mode, stages.get(w.table)!)} RETURNING 1)`,
      );
      const params: unknown[] = [];
      if (state) {
        params.push(
          state.feed,
          state.cursor,
          JSON.stringify(state.skipIds),
          state.expect + 1,
          state.items,
          state.lastSyncedAt,
          state.lastCompletedAt,
          state.since,
          state.expect,
        );
        ctes.push(
          state.expect === 0
            ? `st AS (INSERT INTO sync_state (feed, cursor, skip_ids, generation, items, last_synced_at, last_completed_at, since)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (feed) DO NOTHING RETURNING generation, $9::bigint AS expected)`
            : `st AS (UPDATE sync_state SET cursor = $2, skip_ids = $3, generation = $4, items = $5, last_synced_at = $6,
               last_completed_at = $7, since = $8 WHERE feed = $1 AND generation = $9 RETURNING generation)`,
        );
      }
      let changed: number[] = list.map((w) => (direct.includes(w) ? w.rows.length : 0));
      let generation = 0;
      if (ctes.length) {
        const select = [
          ...staged.map((_, i) => `(SELECT COUNT(*) FROM w${i}) AS c${i}`),
          ...(state ? ["(SELECT generation FROM st) AS gen"] : []),
        ];
        const r = await this.q(`WITH ${ctes.join(",\n")}\nSELECT ${select.join(", ")}`, params);
        const row = r.rows[0] ?? {};
        changed = list.map((w) =>
          direct.includes(w) ? w.rows.length : Number(row[`c${staged.indexOf(w)}`] ?? 0),
        );
        if (state) {
          if (row.gen === null || row.gen === undefined) throw movedUnderUs(state.feed, this.label);
          generation = Number(row.gen);
        }
      }
      await this.setMeta(meta);
      // Rows per write in the caller's order (merged writes report their table's count once).
      const byTable = new Map(list.map((w, i) => [w.table, changed[i]!]));
      const seen = new Set<TableName>();
      return {
        changed: writes.map((w) => {
          if (seen.has(w.table)) return 0;
          seen.add(w.table);
          return byTable.get(w.table) ?? 0;
        }),
        generation,
      };
    });
  }

  private async setMeta(meta: Record<string, string> | undefined): Promise<void> {
    for (const [k, v] of Object.entries(meta ?? {}))
      await this.q(
        "INSERT INTO sync_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        [k, v],
      );
  }

  async existing(table: TableName, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const pk = TABLES[table].primaryKey[0]!;
    const r = await this.q(`SELECT ${pk} AS id FROM ${table} WHERE ${pk} = ANY($1)`, [ids]);
    return new Set(r.rows.map((x) => String(x.id)));
  }

  async count(table: TableName): Promise<number> {
    const r = await this.q(`SELECT COUNT(*) AS n FROM ${table}`);
    return Number(r.rows[0]?.n ?? 0);
  }

  async redemptionTimes(afterId: string, limit: number): Promise<[string, string][]> {
    const r = await this.q("SELECT id, redeemed_at FROM redemptions WHERE id > $1 ORDER BY id LIMIT $2", [
      afterId,
      limit,
    ]);
    return r.rows.map((x) => [String(x.id), iso(x.redeemed_at)!]);
  }

  async setRedemptionDays(pairs: [string, string][], meta?: Record<string, string>): Promise<void> {
    await this.transaction(async () => {
      if (pairs.length)
        await this.q(
          "UPDATE redemptions r SET redeemed_day = v.day::date FROM unnest($1::text[], $2::text[]) AS v(id, day) WHERE r.id = v.id",
          [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
        );
      await this.setMeta(meta);
    });
  }

  /** A table that is empty is loaded with COPY straight into it until finishLoad. */
  async beginLoad(table: TableName): Promise<void> {
    const r = await this.q(`SELECT 1 FROM ${table} LIMIT 1`);
    if (r.rows.length === 0) this.loading.add(table);
  }

  async finishLoad(table: TableName): Promise<void> {
    this.loading.delete(table);
  }

  async flush(): Promise<void> {
    // Every commit() is its own transaction here.
  }

  async close(): Promise<void> {
    // Ending the session releases the advisory lock.
    await this.client.end().catch(() => {});
  }
}
