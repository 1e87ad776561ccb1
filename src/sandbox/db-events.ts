// The event log of one organization in SQLite: table `events`, primary key (org, occurred_at, id), the
// order of GET /events; an index by id for GET /events/{id}. Appending is one prepared INSERT, so a
// simulate emitting millions of events holds none of them in memory.
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
  "CREATE TABLE IF NOT EXISTS events (org TEXT NOT NULL, occurred_at TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (org, occurred_at, id)) WITHOUT ROWID",
  "CREATE INDEX IF NOT EXISTS events_id ON events (org, id)",
  "CREATE INDEX IF NOT EXISTS events_type ON events (org, type, occurred_at, id)",
];

/** Planner statistics (see db.ts tableStats). */
export const EVENTS_STATS: [string, string, string][] = [
  ["events", "events", "10000000 1000000 1 1"],
  ["events", "events_id", "10000000 1000000 1"],
  ["events", "events_type", "10000000 1000000 100000 1 1"],
];

const parse = (t: unknown) => JSON.parse(t as string) as EventEnvelope;

export class EventLog {
  constructor(
    private readonly sql: SqlDb,
    readonly org: string,
  ) {}

  append(e: EventEnvelope): void {
    this.sql
      .stmt("INSERT OR REPLACE INTO events (org, occurred_at, id, type, body) VALUES (?, ?, ?, ?, ?)")
      .run(this.org, e.occurredAt, e.id, e.type, JSON.stringify(e));
  }

  get(id: string): EventEnvelope | undefined {
    const t = this.sql.value("SELECT body FROM events WHERE org = ? AND id = ?", this.org, id);
    return t === undefined ? undefined : parse(t);
  }

  get length(): number {
    return Number(this.sql.value("SELECT count(*) FROM events WHERE org = ?", this.org));
  }

  /**
   * Up to `limit` events after `after` (exclusive), of `type` if given, occurred at or after
   * `minOccurredAt`, in (occurredAt, id) order.
   */
  page(q: { after?: Position | undefined; type?: string | null; minOccurredAt: string; limit: number }) {
    const after = q.after ?? { o: "", i: "" };
    const typed = q.type ? " AND type = ?" : "";
    const params: unknown[] = [this.org, after.o, after.i, q.minOccurredAt];
    if (q.type) params.push(q.type);
    return this.sql
      .stmt(
        `SELECT body FROM events WHERE org = ? AND (occurred_at, id) > (?, ?) AND occurred_at >= ?${typed} ORDER BY occurred_at, id LIMIT ?`,
      )
      .pluck()
      .all(...params, q.limit)
      .map(parse);
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
    return this.sql.stmt("DELETE FROM events WHERE org = ? AND occurred_at < ?").run(this.org, iso).changes;
  }

  clear(): void {
    this.sql.stmt("DELETE FROM events WHERE org = ?").run(this.org);
  }
}
