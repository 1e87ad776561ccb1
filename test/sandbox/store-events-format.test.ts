// The event log's storage (db-events.ts): rows keyed by an organization number with the data only,
// appends held back within a transaction and written in batches (read back inside the same
// transaction and after the commit), and a format-1 database (org id text, the envelope's JSON as
// body) converted on open without losing an event or changing one.
import { join } from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { SandboxStore } from "../../src/sandbox/store.js";
import { tempDir } from "../helpers/sandbox.js";

const require = createRequire(import.meta.url);
type Db = {
  exec(sql: string): void;
  prepare(sql: string): { run(...a: unknown[]): unknown; raw(): { all(): unknown[][]; get(): unknown[] } };
  close(): void;
};
const Database = require("libsql") as new (path: string) => Db;

const ORG = "5b0f7a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
const envelope = (n: number) => ({
  id: `0190a1b2-c3d4-7${String(n).padStart(3, "0")}-8000-00000000000${n % 10}`,
  type: n % 2 ? "code.issued" : "redemption.recorded",
  occurredAt: `2026-11-2${n % 3}T05:00:0${n % 10}Z`,
  organizationId: ORG,
  sample: false,
  data: { n, name: 'Mü "quoted" \u2028', rate: 0.1, nested: { list: [1, null, true] } },
});

/** What the format-1 store (commit 1c64de0) wrote: a data dir whose events are envelopes. */
function formatOneDir(count: number): string {
  const dir = tempDir();
  const db = new Database(join(dir, "sandbox.db"));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(
    "CREATE TABLE events (org TEXT NOT NULL, occurred_at TEXT NOT NULL, id TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (org, occurred_at, id)) WITHOUT ROWID",
  );
  db.exec("CREATE INDEX events_id ON events (org, id)");
  db.exec("CREATE INDEX events_type ON events (org, type, occurred_at, id)");
  db.exec(
    "CREATE TABLE organizations (org TEXT NOT NULL, scope TEXT NOT NULL, k TEXT NOT NULL, seq INTEGER NOT NULL, v TEXT NOT NULL, PRIMARY KEY (org, scope, k)) WITHOUT ROWID",
  );
  db.exec("ANALYZE");
  const ins = db.prepare("INSERT INTO events VALUES (?, ?, ?, ?, ?)");
  for (let n = 0; n < count; n++) {
    const e = envelope(n);
    ins.run(ORG, e.occurredAt, e.id, e.type, JSON.stringify(e));
  }
  db.prepare("INSERT INTO organizations VALUES ('', '', ?, 1, ?)").run(
    ORG,
    JSON.stringify({ id: ORG, name: "Old", reportingTimeZone: "UTC", active: true, alertRecipients: [] }),
  );
  db.exec("PRAGMA user_version = 1");
  db.close();
  return dir;
}

describe("the event log's storage", () => {
  it("converts a format-1 data dir on open: every event as it was, in order, by id and by type", async () => {
    const dir = formatOneDir(25);
    const store = await SandboxStore.open(dir);
    try {
      const log = store.orgs.get(ORG)!.events;
      const want = Array.from({ length: 25 }, (_, n) => envelope(n)).sort((a, b) =>
        a.occurredAt === b.occurredAt ? (a.id < b.id ? -1 : 1) : a.occurredAt < b.occurredAt ? -1 : 1,
      );
      expect(log.list()).toEqual(want);
      expect(JSON.stringify(log.get(envelope(7).id))).toBe(JSON.stringify(envelope(7)));
      expect(log.page({ type: "code.issued", minOccurredAt: "", limit: 100 }).map((e) => e.id)).toEqual(
        want.filter((e) => e.type === "code.issued").map((e) => e.id),
      );
      expect(log.length).toBe(25);
    } finally {
      store.close();
    }
    // Opened again: already format 2, nothing converted twice.
    const again = await SandboxStore.open(dir);
    try {
      expect(again.orgs.get(ORG)!.events.length).toBe(25);
      const version = again.sql.value("PRAGMA user_version");
      expect(version).toBe(2);
      expect(again.sql.value("SELECT count(*) FROM sqlite_master WHERE name = 'events_v1'")).toBe(0);
    } finally {
      again.close();
    }
  });

  it("reads its own appends within the transaction and after the commit, across batch boundaries", async () => {
    const store = await SandboxStore.open();
    try {
      store.write(() => {
        store.organizations.set(ORG, {
          id: ORG,
          name: "New",
          reportingTimeZone: "UTC",
          active: true,
          alertRecipients: [],
        });
      });
      const log = store.orgs.get(ORG)!.events;
      const made = Array.from({ length: 450 }, (_, n) => ({
        ...envelope(n),
        id: `0190a1b2-c3d4-7000-8000-${String(n).padStart(12, "0")}`,
        occurredAt: "2026-11-28T05:00:00Z",
      }));
      store.write(() => {
        for (const e of made.slice(0, 201)) log.append(e);
        // Read inside the transaction: the held-back rows are written first.
        expect(log.length).toBe(201);
        expect(log.get(made[200]!.id)).toEqual(made[200]);
        for (const e of made.slice(201)) log.append(e);
      });
      expect(log.list()).toEqual(made);
      // Outside a transaction an append is written at once.
      const late = {
        ...envelope(1),
        id: "0190a1b2-c3d4-7000-8000-999999999999",
        occurredAt: "2026-11-28T05:00:01Z",
      };
      log.append(late);
      expect(log.get(late.id)).toEqual(late);
      expect(log.length).toBe(451);
    } finally {
      store.close();
    }
  });
});
