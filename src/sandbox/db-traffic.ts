// The traffic of an organization (domain/traffic.ts: typed-array columns) in SQLite, as column blobs:
// each column is cut in chunks of CHUNK_BYTES (table `traffic_chunks`), the interned strings in
// chunks of STRING_CHUNK (`traffic_strings`), the rest in one JSON row (`traffic_meta`). Before each
// commit the loaded columns are compared with what was last written and only the chunks that differ
// are written, in the same transaction as the request's other writes.
import type { SqlDb } from "./db.js";
import type { Column, StringTable, Typed } from "./domain/columns.js";
import { type SupplyAlertState, Traffic } from "./domain/traffic.js";

const CHUNK_BYTES = 64 * 1024;
const STRING_CHUNK = 4096;

export const TRAFFIC_SCHEMA = [
  "CREATE TABLE IF NOT EXISTS traffic_meta (org TEXT PRIMARY KEY, v TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS traffic_chunks (org TEXT NOT NULL, col TEXT NOT NULL, chunk INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (org, col, chunk)) WITHOUT ROWID",
  "CREATE TABLE IF NOT EXISTS traffic_strings (org TEXT NOT NULL, name TEXT NOT NULL, chunk INTEGER NOT NULL, v TEXT NOT NULL, PRIMARY KEY (org, name, chunk)) WITHOUT ROWID",
];

interface Meta {
  redemptionSalt: string;
  claimSalt: string;
  viewCount: number;
  codeCount: number;
  redemptionCount: number;
  asOfFloor: number;
  supplyAlerts: [string, SupplyAlertState][];
}

type Count = "viewCount" | "codeCount" | "redemptionCount";
const columnsOf = (t: Traffic): [string, Column<Typed>, Count][] => [
  ["viewCampaign", t.viewCampaign, "viewCount"],
  ["viewCreator", t.viewCreator, "viewCount"],
  ["viewOrigin", t.viewOrigin, "viewCount"],
  ["viewAt", t.viewAt, "viewCount"],
  ["codeCampaign", t.codeCampaign, "codeCount"],
  ["codeCreator", t.codeCreator, "codeCount"],
  ["codeIssuedAt", t.codeIssuedAt, "codeCount"],
  ["codeRedemption", t.codeRedemption, "codeCount"],
  ["redCode", t.redCode, "redemptionCount"],
  ["redCampaign", t.redCampaign, "redemptionCount"],
  ["redCreator", t.redCreator, "redemptionCount"],
  ["redRedeemedAt", t.redRedeemedAt, "redemptionCount"],
  ["redRecordedAt", t.redRecordedAt, "redemptionCount"],
  ["redFlags", t.redFlags, "redemptionCount"],
  ["redExcludedAt", t.redExcludedAt, "redemptionCount"],
  ["redReason", t.redReason, "redemptionCount"],
];
const stringsOf = (t: Traffic): [string, StringTable][] => [
  ["campaigns", t.campaigns],
  ["creators", t.creators],
  ["origins", t.origins],
  ["reasons", t.reasons],
];

const metaOf = (t: Traffic): Meta => ({
  redemptionSalt: t.redemptionSalt,
  claimSalt: t.claimSalt,
  viewCount: t.viewCount,
  codeCount: t.codeCount,
  redemptionCount: t.redemptionCount,
  asOfFloor: t.asOfFloor,
  supplyAlerts: [...t.supplyAlerts.entries()],
});

const bytesOf = (c: Column<Typed>, n: number) =>
  Buffer.from(c.data.buffer, c.data.byteOffset, n * c.data.BYTES_PER_ELEMENT);

/** The traffic of one organization as loaded, with what was last written (to write only changes). */
export class StoredTraffic {
  private savedMeta = "";
  private readonly saved = new Map<string, Buffer>();
  private readonly savedStrings = new Map<string, number>();

  private constructor(
    private readonly sql: SqlDb,
    private readonly org: string,
    readonly traffic: Traffic,
  ) {}

  /** The organization's traffic from the database (new and empty when it has none). */
  static load(sql: SqlDb, org: string): StoredTraffic {
    const text = sql.value("SELECT v FROM traffic_meta WHERE org = ?", org) as string | undefined;
    if (text === undefined) return new StoredTraffic(sql, org, new Traffic());
    const m = JSON.parse(text) as Meta;
    const t = new Traffic({ redemptionSalt: m.redemptionSalt, claimSalt: m.claimSalt });
    const s = new StoredTraffic(sql, org, t);
    s.savedMeta = text;
    const strings = sql
      .stmt("SELECT name, v FROM traffic_strings WHERE org = ? ORDER BY name, chunk")
      .raw()
      .all(org) as [string, string][];
    const byName = new Map(stringsOf(t));
    for (const [name, v] of strings) {
      const table = byName.get(name)!;
      for (const x of JSON.parse(v) as string[]) table.intern(x);
    }
    for (const [name, table] of stringsOf(t)) s.savedStrings.set(name, table.values.length);
    t.viewCount = m.viewCount;
    t.codeCount = m.codeCount;
    t.redemptionCount = m.redemptionCount;
    t.asOfFloor = m.asOfFloor;
    for (const [k, v] of m.supplyAlerts) t.supplyAlerts.set(k, v);
    const chunks = sql
      .stmt("SELECT data FROM traffic_chunks WHERE org = ? AND col = ? ORDER BY chunk")
      .pluck();
    for (const [name, col, count] of columnsOf(t)) {
      const bytes = Buffer.concat((chunks.all(org, name) as Uint8Array[]).map((b) => Buffer.from(b)));
      const n = t[count];
      col.ensure(Math.max(64, n));
      new Uint8Array(col.data.buffer, col.data.byteOffset, bytes.length).set(bytes);
      s.saved.set(name, Buffer.from(bytes));
    }
    return s;
  }

  /** Writes what changed since the last write: the chunks that differ, new strings, the meta row. */
  flush(): void {
    const t = this.traffic;
    const meta = JSON.stringify(metaOf(t));
    const put = this.sql.stmt(
      "INSERT OR REPLACE INTO traffic_chunks (org, col, chunk, data) VALUES (?, ?, ?, ?)",
    );
    for (const [name, col, count] of columnsOf(t)) {
      const now = bytesOf(col, t[count]);
      const old = this.saved.get(name) ?? Buffer.alloc(0);
      if (now.length === old.length && now.equals(old)) continue;
      const next = Buffer.alloc(now.length);
      old.copy(next, 0, 0, Math.min(old.length, now.length));
      for (let at = 0; at < now.length; at += CHUNK_BYTES) {
        const a = now.subarray(at, at + CHUNK_BYTES);
        const b = old.subarray(at, at + CHUNK_BYTES);
        if (a.length === b.length && a.equals(b)) continue;
        put.run(this.org, name, at / CHUNK_BYTES, a);
        a.copy(next, at);
      }
      this.saved.set(name, next);
    }
    const putStrings = this.sql.stmt(
      "INSERT OR REPLACE INTO traffic_strings (org, name, chunk, v) VALUES (?, ?, ?, ?)",
    );
    for (const [name, table] of stringsOf(t)) {
      const had = this.savedStrings.get(name) ?? 0;
      const n = table.values.length;
      if (n === had) continue;
      for (let c = Math.floor(had / STRING_CHUNK); c * STRING_CHUNK < n; c++)
        putStrings.run(
          this.org,
          name,
          c,
          JSON.stringify(table.values.slice(c * STRING_CHUNK, (c + 1) * STRING_CHUNK)),
        );
      this.savedStrings.set(name, n);
    }
    if (meta !== this.savedMeta) {
      this.sql.stmt("INSERT OR REPLACE INTO traffic_meta (org, v) VALUES (?, ?)").run(this.org, meta);
      this.savedMeta = meta;
    }
  }
}

export function clearTraffic(sql: SqlDb, org: string): void {
  for (const table of ["traffic_meta", "traffic_chunks", "traffic_strings"])
    sql.stmt(`DELETE FROM ${table} WHERE org = ?`).run(org);
}
