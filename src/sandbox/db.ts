// The sandbox's state in SQLite (libsql, synchronous like better-sqlite3): one connection, a table per
// collection, one transaction per request (server.ts) or engine step, committed before the answer is
// sent. WAL with synchronous=FULL: a commit is on disk when it returns, so neither a killed process
// nor a power cut loses an acknowledged write (NORMAL would survive a kill but not a power cut).
//
// Every collection table has the same core: (org, scope, k) the primary key, `seq` the insertion order
// (what a Map iterated in), `v` the record as JSON, and the columns its lists filter on, extracted in
// JS when the record is written and indexed. Records read are fresh frozen objects: a handler that
// changes one writes it back with put/edit, never in place.
import type DatabaseCtor from "libsql";

export type Database = DatabaseCtor.Database;
type Statement = DatabaseCtor.Statement<unknown[]>;
type Cell = string | number | null;

export interface ColumnDef {
  name: string;
  type: "INTEGER" | "TEXT";
  of: (v: never) => Cell;
}

export interface TableDef {
  name: string;
  cols?: ColumnDef[];
  /** Extra indexes, each a column list after (org, scope). */
  indexes?: string[][];
}

/** Freezes a parsed record (and what it holds), so a change in place fails loudly. */
function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

const parse = <V>(text: string): V => deepFreeze(JSON.parse(text) as V);

/** A mutable copy of a frozen record. */
export const copyOf = <V>(v: V): V => structuredClone(v);

/** The connection, its prepared statements, the insertion counters and the transaction. */
export class SqlDb {
  private readonly stmts = new Map<string, Statement>();
  private readonly seqs = new Map<string, number>();
  private readonly writeCounts = new Map<string, number>();
  private depth = 0;
  /** Run just before each COMMIT (the traffic columns are written there). */
  readonly beforeCommit: (() => void)[] = [];
  /** Writers holding rows back in the open transaction (the event log): flushed before COMMIT. */
  readonly deferred = new Set<{ flush(): void }>();

  constructor(readonly db: Database) {}

  stmt(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql) as Statement;
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** How many writes a table had in this process (caches key on it). */
  writes(table: string): number {
    return this.writeCounts.get(table) ?? 0;
  }

  wrote(table: string): void {
    this.writeCounts.set(table, this.writes(table) + 1);
  }

  /** The first column of the first row (undefined without a row). libsql's get ignores pluck. */
  value(sql: string, ...params: unknown[]): unknown {
    return (
      this.stmt(sql)
        .raw()
        .get(...params) as unknown[] | undefined
    )?.[0];
  }

  nextSeq(table: string): number {
    let n = this.seqs.get(table);
    if (n === undefined) n = Number(this.value(`SELECT coalesce(max(seq), 0) AS n FROM ${table}`));
    this.seqs.set(table, n + 1);
    return n + 1;
  }

  /**
   * Runs `fn` in one transaction (joining the open one, if any) and commits before returning. The
   * writes commit even when `fn` throws: the live caches (the traffic columns) are not rolled back
   * either, so the state on disk stays what the sandbox answers from.
   */
  write<T>(fn: () => T): T {
    if (this.depth > 0) return fn();
    this.db.exec("BEGIN");
    this.depth++;
    try {
      return fn();
    } finally {
      try {
        for (const w of this.deferred) w.flush();
        for (const hook of this.beforeCommit) hook();
      } finally {
        this.depth--;
        this.db.exec("COMMIT");
      }
    }
  }

  get inWrite(): boolean {
    return this.depth > 0;
  }

  resetCounters(): void {
    this.seqs.clear();
  }
}

/** Rows sharing one value of an indexed column, as told to the planner (default: about one). */
const SHARED: Record<string, number> = { active: 500_000, status: 1000, endpoint_id: 100 };

/**
 * Planner statistics (sqlite_stat1) for a table: (org, scope) alone selects many rows, each filter
 * column few. Without them SQLite prefers the primary key's (org, scope) prefix to every index.
 */
export function tableStats(def: TableDef): [string, string, string][] {
  const out: [string, string, string][] = [[def.name, def.name, "1000000 100000 100000 1"]];
  out.push([def.name, `${def.name}_seq`, "1000000 100000 100000 1 1"]);
  for (const ix of def.indexes ?? []) {
    const per = ix.map((c) => SHARED[c] ?? 1);
    out.push([def.name, `${def.name}_${ix.join("_")}`, ["1000000 100000 100000", ...per, 1].join(" ")]);
  }
  return out;
}

export function createTableSql(def: TableDef): string[] {
  const cols = (def.cols ?? []).map((c) => `${c.name} ${c.type}, `).join("");
  const out = [
    `CREATE TABLE IF NOT EXISTS ${def.name} (org TEXT NOT NULL, scope TEXT NOT NULL, k TEXT NOT NULL, seq INTEGER NOT NULL, ${cols}v TEXT NOT NULL, PRIMARY KEY (org, scope, k)) WITHOUT ROWID`,
    `CREATE INDEX IF NOT EXISTS ${def.name}_seq ON ${def.name} (org, scope, seq)`,
  ];
  for (const ix of def.indexes ?? [])
    out.push(
      `CREATE INDEX IF NOT EXISTS ${def.name}_${ix.join("_")} ON ${def.name} (org, scope, ${ix.join(", ")})`,
    );
  return out;
}

export interface PageQuery {
  offset: number;
  limit: number;
  /** Equality filters on the table's columns. */
  where?: Record<string, Cell>;
  /** Lower bounds (>=) on the table's columns. */
  atLeast?: Record<string, Cell>;
}

/**
 * One collection of one organization (and scope, e.g. a campaign's links): Map-like reads in
 * insertion order, pages in key order (the order of every list of the API), writes through.
 */
export class Table<V> {
  private readonly base: string;
  private readonly upsertSql: string;

  constructor(
    private readonly sql: SqlDb,
    private readonly def: TableDef,
    readonly org: string,
    readonly scope = "",
  ) {
    this.base = `FROM ${def.name} WHERE org = ? AND scope = ?`;
    const cols = (def.cols ?? []).map((c) => c.name);
    const names = ["org", "scope", "k", "seq", ...cols, "v"];
    const sets = [...cols, "v"].map((c) => `${c} = excluded.${c}`).join(", ");
    this.upsertSql = `INSERT INTO ${def.name} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")}) ON CONFLICT (org, scope, k) DO UPDATE SET ${sets}`;
  }

  get(k: string): V | undefined {
    const text = this.sql.value(`SELECT v ${this.base} AND k = ?`, this.org, this.scope, k);
    return text === undefined || text === null ? undefined : parse<V>(text as string);
  }

  has(k: string): boolean {
    return this.sql.value(`SELECT 1 ${this.base} AND k = ?`, this.org, this.scope, k) !== undefined;
  }

  /** Writes a record (a new key goes last in insertion order; an existing one keeps its place). */
  set(k: string, v: V): this {
    const cells = (this.def.cols ?? []).map((c) => (c.of as (v: V) => Cell)(v));
    const seq = this.sql.nextSeq(this.def.name);
    this.sql.stmt(this.upsertSql).run(this.org, this.scope, k, seq, ...cells, JSON.stringify(v));
    this.sql.wrote(this.def.name);
    return this;
  }

  put(k: string, v: V): V {
    this.set(k, v);
    return v;
  }

  /** Reads a record, lets `fn` change a copy of it, writes the copy. Undefined when there is none. */
  edit(k: string, fn: (v: V) => void): V | undefined {
    const cur = this.get(k);
    if (cur === undefined) return undefined;
    const next = copyOf(cur);
    fn(next);
    this.set(k, next);
    return deepFreeze(next);
  }

  delete(k: string): boolean {
    this.sql.wrote(this.def.name);
    return this.sql.stmt(`DELETE ${this.base} AND k = ?`).run(this.org, this.scope, k).changes > 0;
  }

  clear(): void {
    this.sql.wrote(this.def.name);
    this.sql.stmt(`DELETE ${this.base}`).run(this.org, this.scope);
  }

  get size(): number {
    return Number(this.sql.value(`SELECT count(*) ${this.base}`, this.org, this.scope));
  }

  /** Every record in insertion order. */
  values(): V[] {
    const rows = this.sql.stmt(`SELECT v ${this.base} ORDER BY seq`).pluck().all(this.org, this.scope);
    return rows.map((t) => parse<V>(t as string));
  }

  keys(): string[] {
    return this.sql.stmt(`SELECT k ${this.base} ORDER BY seq`).pluck().all(this.org, this.scope) as string[];
  }

  entries(): [string, V][] {
    const rows = this.sql.stmt(`SELECT k, v ${this.base} ORDER BY seq`).raw().all(this.org, this.scope);
    return (rows as [string, string][]).map(([k, t]) => [k, parse<V>(t)]);
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries()[Symbol.iterator]();
  }

  /** Records whose column `col` equals `value` (or, with null, is not null), in insertion order. */
  where(col: string, value: Cell | { notNull: true }): V[] {
    const cond = value !== null && typeof value === "object" ? `${col} IS NOT NULL` : `${col} = ?`;
    const params: unknown[] = [this.org, this.scope];
    if (!(value !== null && typeof value === "object")) params.push(value);
    const rows = this.sql
      .stmt(`SELECT v ${this.base} AND ${cond} ORDER BY seq`)
      .pluck()
      .all(...params);
    return rows.map((t) => parse<V>(t as string));
  }

  /** A page in key order, with the filter's total count: only the page's records are read. */
  page(q: PageQuery): { items: V[]; totalCount: number } {
    let cond = "";
    const params: unknown[] = [this.org, this.scope];
    for (const [c, v] of Object.entries(q.where ?? {})) {
      cond += ` AND ${c} = ?`;
      params.push(v);
    }
    for (const [c, v] of Object.entries(q.atLeast ?? {})) {
      cond += ` AND ${c} >= ?`;
      params.push(v);
    }
    const totalCount = Number(this.sql.value(`SELECT count(*) ${this.base}${cond}`, ...params));
    const rows = this.sql
      .stmt(`SELECT v ${this.base}${cond} ORDER BY k LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, q.limit, q.offset);
    return { items: rows.map((t) => parse<V>(t as string)), totalCount };
  }
}
