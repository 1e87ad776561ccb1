// The destination layer on each database: a page's rows and its checkpoint are one transaction (a
// refused checkpoint takes the rows back), upserts count only real changes, events are inserted once.
// SQLite groups consecutive pages into one transaction until flush() (or enough rows or time).
import { afterAll, describe, expect, it } from "vitest";
import { LockedError } from "../../src/errors.js";
import type { Destination } from "../../src/sync/destination.js";
import { openPostgres } from "../../src/sync/postgres.js";
import { openSqlite } from "../../src/sync/sqlite.js";
import { parseSyncTarget } from "../../src/sync/target.js";
import { destinationKinds, makeDest, type TestDest } from "./destinations.js";
import { SEED } from "../../src/sandbox/seed.js";

const redemption = (id: string, state = "counted") => [
  id,
  "0123",
  "2026-01-02T03:04:05Z",
  "2026-01-01",
  "2026-01-02T03:04:06Z",
  state,
  null,
  null,
  "camp-1",
  null,
  "Camp",
  SEED.offers.oatsUnknownSupply,
  null,
  "b-1",
  "Brand",
  "cr-1",
  "Creator",
  null,
  null,
];

const state = (expect: number, items: number) => ({
  feed: "redemptions",
  expect,
  cursor: `c${items}`,
  skipIds: [],
  items,
  lastSyncedAt: "2026-01-02T00:00:00Z",
  lastCompletedAt: null,
  since: null,
});

describe.each(destinationKinds())("destination %s", (kind) => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const f of cleanup.reverse()) await f();
  });

  async function open(): Promise<{ dest: Destination; db: TestDest }> {
    const db = await makeDest(kind);
    const t = parseSyncTarget(db.to, "--to");
    const dest =
      t.kind === "sqlite" ? await openSqlite({ path: t.path, label: t.label }) : await openPostgres(t);
    cleanup.push(
      () => db.close(),
      () => dest.close(),
    );
    await dest.lock();
    await dest.migrate("2026-01-01T00:00:00Z");
    return { dest, db };
  }
  const ids = async (db: TestDest) =>
    (await db.query("SELECT id FROM redemptions ORDER BY id")).map((r) => r[0]);

  it("a checkpoint refused (moved by another run) takes the page's rows back with it", async () => {
    const { dest, db } = await open();
    const first = await dest.commit(
      [{ table: "redemptions", mode: "upsert", rows: [redemption("a")] }],
      state(0, 1),
    );
    expect(first.generation).toBe(1);
    await dest.flush();
    // Another run wrote generation 1; this one still believes 0.
    await expect(
      dest.commit([{ table: "redemptions", mode: "upsert", rows: [redemption("b")] }], state(0, 2)),
    ).rejects.toBeInstanceOf(LockedError);
    expect(await ids(db)).toEqual(["a"]);
    const [st] = await db.query("SELECT generation, items, cursor FROM sync_state");
    expect(st!.map(Number).slice(0, 2)).toEqual([1, 1]);
    expect(st![2]).toBe("c1");
  });

  it("a first load (empty table) writes the same rows, refuses nothing it should not, and ends with the key in place", async () => {
    const { dest, db } = await open();
    const w = (rows: unknown[][]) => [
      { table: "redemptions" as const, mode: "upsert" as const, rows: rows as never },
    ];
    await dest.beginLoad("redemptions");
    expect((await dest.commit(w([redemption("a"), redemption("b")]), state(0, 2))).changed).toEqual([2]);
    if (kind === "sqlite") {
      await dest.flush();
      // Loaded without the id index and the secondary ones (built once at the end).
      const during = await db.query(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'redemptions'",
      );
      expect(Number(during[0]![0])).toBe(1);
    }
    // The repeated last page of a feed, and a changed row: upserted, not duplicated, not refused.
    expect(
      (await dest.commit(w([redemption("b"), redemption("a", "excluded"), redemption("c")]), state(1, 3)))
        .changed[0],
    ).toBeGreaterThanOrEqual(2);
    await dest.finishLoad("redemptions");
    await dest.flush();
    expect(await db.query("SELECT id, counting_state FROM redemptions ORDER BY id")).toEqual([
      ["a", "excluded"],
      ["b", "counted"],
      ["c", "counted"],
    ]);
    if (kind === "sqlite") {
      const idx = await db.query(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'redemptions' ORDER BY name",
      );
      expect(idx.map((r) => r[0])).toEqual([
        "redemptions_campaign_creator_day",
        "redemptions_creator",
        "redemptions_feed_order",
        "redemptions_pk",
      ]);
      // A second load of a table that has rows keeps its key.
      await dest.beginLoad("redemptions");
      const again = await db.query("SELECT name FROM sqlite_master WHERE name = 'redemptions_pk'");
      expect(again).toHaveLength(1);
    }
  });

  it("upserts count only rows that change; events are inserted once", async () => {
    const { dest, db } = await open();
    const w = (rows: unknown[][]) => [
      { table: "redemptions" as const, mode: "upsert" as const, rows: rows as never },
    ];
    expect((await dest.commit(w([redemption("a"), redemption("b")]))).changed).toEqual([2]);
    expect((await dest.commit(w([redemption("a"), redemption("b")]))).changed).toEqual([0]);
    expect((await dest.commit(w([redemption("a", "excluded"), redemption("b")]))).changed).toEqual([1]);
    // A page naming one redemption twice keeps the last.
    expect(
      (await dest.commit(w([redemption("c", "counted"), redemption("c", "test_code")]))).changed,
    ).toEqual([1]);
    await dest.flush();
    const rows = await db.query("SELECT id, counting_state FROM redemptions ORDER BY id");
    expect(rows).toEqual([
      ["a", "excluded"],
      ["b", "counted"],
      ["c", "test_code"],
    ]);
    const ev = [
      "e1",
      "code.issued",
      "2026-01-02T03:04:05Z",
      false,
      "code",
      "claim-1",
      "camp-1",
      "cr-1",
      JSON.stringify({ claimId: "claim-1", note: "tab\there, newline\nthere, back\\slash" }),
    ];
    const e = { table: "events" as const, mode: "insert" as const, rows: [ev as never] };
    expect((await dest.commit([e])).changed).toEqual([1]);
    expect((await dest.commit([e])).changed).toEqual([0]);
    await dest.flush();
    const [data] = await db.query("SELECT data FROM events");
    expect(JSON.parse(String(data![0])).note).toBe("tab\there, newline\nthere, back\\slash");
  });
});
