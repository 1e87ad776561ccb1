// A destination database of `sync`: SQLite (src/sync/sqlite.ts) or PostgreSQL (src/sync/postgres.ts).
// The one guarantee both give: the rows of a page and the checkpoint that covers them commit in ONE
// transaction, and a checkpoint is written only if nobody else moved it since this run read it (its
// generation), so two runs that somehow both got past the lock cannot write the same page twice.
import { LockedError } from "../errors.js";
import type { Row } from "./rows.js";
import type { Dialect, TableName } from "./schema.js";

/** The copy's position in one feed or list (a row of `sync_state`). */
export interface FeedState {
  feed: string;
  cursor: string | null;
  /** Ids already handled from the page that `cursor` starts at (the last page repeats). */
  skipIds: string[];
  /** Incremented by every write of this row; 0 when there is no row yet. */
  generation: number;
  /** Items handled from the start of the feed up to this position (samples left out). */
  items: number;
  /** When a run last committed anything for this feed. */
  lastSyncedAt: string | null;
  /** When a run last read this feed to its end (the last page) or the whole list. */
  lastCompletedAt: string | null;
  /** Roster: the updatedSince of the next read (the start of the last completed read, less a margin). */
  since: string | null;
}

export interface TableWrite {
  table: TableName;
  rows: Row[];
  /** upsert: insert, or update when any column differs; insert: insert only rows not there (events). */
  mode: "upsert" | "insert";
}

export interface StateWrite {
  feed: string;
  /** The generation this run read (0: no row); the commit is refused if the row has another. */
  expect: number;
  cursor: string | null;
  skipIds: string[];
  items: number;
  lastSyncedAt: string;
  lastCompletedAt: string | null;
  since: string | null;
}

export interface CommitResult {
  /** Rows inserted or changed, per write. */
  changed: number[];
  /** The state row's new generation (when a state was written). */
  generation: number;
}

export interface Destination {
  readonly dialect: Dialect;
  /** For messages: sqlite:PATH or the URL without its password. */
  readonly label: string;
  /** Takes the run lock (LockedError when another run holds it). */
  lock(): Promise<void>;
  /** The highest applied schema version; 0 when the database holds no partner-cli schema. */
  schemaVersion(): Promise<number>;
  /** Tables or views named like ours that exist without a schema_version table (someone else's). */
  foreignObjects(): Promise<string[]>;
  /** Applies the migrations after the current version, each in a transaction; returns their versions. */
  migrate(now: string): Promise<number[]>;
  meta(): Promise<Record<string, string>>;
  states(): Promise<FeedState[]>;
  /** One transaction: the writes, then the state (generation-checked), then the meta entries. */
  commit(writes: TableWrite[], state?: StateWrite, meta?: Record<string, string>): Promise<CommitResult>;
  /** Which of `ids` have a row in the table (single-column primary keys). */
  existing(table: TableName, ids: string[]): Promise<Set<string>>;
  count(table: TableName): Promise<number>;
  /** Redemptions after `afterId` (by id): [id, redeemed_at as ISO-8601]. */
  redemptionTimes(afterId: string, limit: number): Promise<[string, string][]>;
  /** Sets redeemed_day of the given redemptions in one transaction, with meta entries. */
  setRedemptionDays(pairs: [string, string][], meta?: Record<string, string>): Promise<void>;
  /**
   * Before a feed's first page. SQLite: a table with a feed key that is empty (a first load), or whose
   * primary-key index an interrupted first load left out, is loaded without that index.
   */
  beginLoad(table: TableName): Promise<void>;
  /** After the feed's last page: builds what beginLoad left out. */
  finishLoad(table: TableName): Promise<void>;
  /** Makes every commit so far durable in the database (SQLite groups pages into one transaction). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

/** The refusal when another run moved a checkpoint under this one (two runs past the lock). */
export function movedUnderUs(feed: string, label: string): LockedError {
  return new LockedError(
    `Another sync into ${label} saved the "${feed}" checkpoint while this run was working; stopped before writing the same rows twice.`,
    "Run again once the other sync has finished; everything committed so far is kept.",
  );
}

/** Keeps the last row of each primary key (a page may, rarely, name one resource twice). */
export function lastPerKey(rows: Row[], keyIndexes: number[]): Row[] {
  if (rows.length < 2) return rows;
  const key = (r: Row) =>
    keyIndexes.length === 1 ? String(r[keyIndexes[0]!]) : keyIndexes.map((i) => r[i]).join("\u0000");
  const seen = new Map<string, number>();
  rows.forEach((r, i) => {
    seen.set(key(r), i);
  });
  if (seen.size === rows.length) return rows;
  return rows.filter((r, i) => seen.get(key(r)) === i);
}
