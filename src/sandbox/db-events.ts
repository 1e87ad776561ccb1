// The event log of one organization in SQLite: table `events`, primary key (org, occurred_at, id), the
// order of GET /events; an index by id for GET /events/{id} and one by type for the type filter.
// Appending holds rows back and writes them in multi-row INSERTs, so a simulate emitting millions of
// events holds at most APPEND_BATCH of them in memory.
//
// A row keeps only what the envelope does not repeat: `org` is the organization's number in
// `event_orgs` (its id is in every key of the three B-trees), `data` the event's data as JSON; the
// envelope (id, type, occurredAt, organizationId, sample false: samples are never logged) is put
// together again on read, in the order it was sent. About 40% fewer bytes per event than the
// envelope's JSON beside a text org id: a million-redemption simulate writes two million events.
import type { SqlDb } from "./db.js";

export interface EventEnvelope {
  id: string;
  type: string;
  occurredAt: string;
  organizationId: string;
  sample: boolean;
  data: Record<string, unknown>;
}

/** A position in the log: occurredAt, then id. */
export interface Position {
  o: string;
  i: string;
}

export const EVENTS_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS event_orgs (n INTEGER PRIMARY KEY, org TEXT NOT NULL UNIQUE)",
  "CREATE TABLE IF NOT EXISTS events (org INTEGER NOT NULL, occurred_at TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (org, occurred_at, id)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS events_id ON events (org, id)",
  "CREATE INDEX IF NOT EXISTS events_type ON events (org, type, occurred_at, id)",
];

/** Planner statistics (see db.ts tableStats). */
export const EVENTS_STATS: [string, string, string][] = [
  ["events", "events", "10000000 1000000 1 1"],
  ["events", "events_id", "10000000 1000000 1"],
  ["events", "events_type", "10000000 1000000 100000 1 1"],
];

type Row = [occurredAt: string, id: string, type: string, data: string];

const COLS = 5;
/** Rows per INSERT while a transaction appends. */
const APPEND_BATCH = 200;
const ROW = "(?, ?, ?, ?, ?)";
const INSERT_HEAD = "INSERT OR REPLACE INTO events (org, occurred_at, id, type, data) VALUES ";
const INSERT_ONE = INSERT_HEAD + ROW;
const INSERT_BATCH = INSERT_HEAD + Array(APPEND_BATCH).fill(ROW).join(", ");
const ROW_COLS = "SELECT occurred_at, id, type, data FROM events";

export class EventLog {
  /** Rows appended in the open transaction and not written yet (COLS cells each). */
  private pending: unknown[] = [];
  /** The organization's number in event_orgs (undefined until known; -1: none yet). */
  private key: number | undefined;

  constructor(
    private readonly sql: SqlDb,
    readonly org: string,
  ) {}

  /** The organization's number, made on first append (reads of an organization without one find nothing). */
  private orgKey(make: boolean): number {
    if (this.key === undefined || this.key < 0) {
      const n = this.sql.value("SELECT n FROM event_orgs WHERE org = ?", this.org);
      if (n !== undefined) this.key = Number(n);
      else if (make)
        this.key = Number(
          this.sql.stmt("INSERT INTO event_orgs (org) VALUES (?)").run(this.org).lastInsertRowid,
        );
      else return -1;
    }
    return this.key!;
  }

  private envelope(r: Row): EventEnvelope {
    return {
      id: r[1],
      type: r[2],
      occurredAt: r[0],
      organizationId: this.org,
      sample: false,
      data: JSON.parse(r[3]) as Record<string, unknown>,
    };
  }

  /**
   * Appends an event. Within a transaction rows are held back and written APPEND_BATCH at a time
   * (one multi-row INSERT: a simulate appends millions), and always before the log is read and
   * before the transaction commits.
   */
  append(e: EventEnvelope): void {
    const p = this.pending;
    p.push(this.key ?? this.orgKey(true), e.occurredAt, e.id, e.type, JSON.stringify(e.data));
    if (!this.sql.inWrite || p.length === APPEND_BATCH * COLS) this.flush();
    else if (p.length === COLS) this.sql.deferred.add(this);
  }

  /** Writes the rows held back. */
  flush(): void {
    const p = this.pending;
    if (p.length === 0) return;
    this.pending = [];
    this.sql.deferred.delete(this);
    if (p.length === APPEND_BATCH * COLS) {
      this.sql.stmt(INSERT_BATCH).run(p);
      return;
    }
    const one = this.sql.stmt(INSERT_ONE);
    for (let at = 0; at < p.length; at += COLS) one.run(p.slice(at, at + COLS));
  }

  get(id: string): EventEnvelope | undefined {
    this.flush();
    const r = this.sql.stmt(`${ROW_COLS} WHERE org = ? AND id = ?`).raw().get(this.orgKey(false), id) as
      | Row
      | undefined;
    return r === undefined ? undefined : this.envelope(r);
  }

  get length(): number {
    this.flush();
    return Number(this.sql.value("SELECT count(*) FROM events WHERE org = ?", this.orgKey(false)));
  }

  /**
   * Up to `limit` events after `after` (exclusive), of `type` if given, occurred at or after
   * `minOccurredAt`, in (occurredAt, id) order.
   */
  page(q: { after?: Position | undefined; type?: string | null; minOccurredAt: string; limit: number }) {
    this.flush();
    const after = q.after ?? { o: "", i: "" };
    const typed = q.type ? " AND type = ?" : "";
    const params: unknown[] = [this.orgKey(false), after.o, after.i, q.minOccurredAt];
    if (q.type) params.push(q.type);
    const rows = this.sql
      .stmt(
        `${ROW_COLS} WHERE org = ? AND (occurred_at, id) > (?, ?) AND occurred_at >= ?${typed} ORDER BY occurred_at, id LIMIT ?`,
      )
      .raw()
      .all(...params, q.limit) as Row[];
    return rows.map((r) => this.envelope(r));
  }

  /** Every event of the filter, in order (the feed faults' rare path, on small logs). */
  all(q: { type?: string | null; minOccurredAt: string }): EventEnvelope[] {
    return this.page({ ...q, limit: -1 });
  }

  /** The whole log in order (tests and small logs). */
  list(): EventEnvelope[] {
    return this.all({ minOccurredAt: "" });
  }

  /** Drops the events that occurred before `iso` (the retention). */
  pruneBefore(iso: string): number {
    this.flush();
    return this.sql.stmt("DELETE FROM events WHERE org = ? AND occurred_at < ?").run(this.orgKey(false), iso)
      .changes;
  }

  clear(): void {
    this.pending = [];
    this.sql.deferred.delete(this);
    this.sql.stmt("DELETE FROM events WHERE org = ?").run(this.orgKey(false));
  }
}
