// Pure parts of sync: destinations parsed and passwords redacted, report days in the reporting time
// zone (DST included), the views' half-even commission arithmetic in both dialects against the
// service's decimal rounding, and one row per key within a page.
import { afterAll, describe, expect, it } from "vitest";
import { estimatedCommission } from "../../src/sandbox/domain/money.js";
import { dayOfMs } from "../../src/spec/days.js";
import { lastPerKey } from "../../src/sync/destination.js";
import { dayInZone, decimalText, scaled } from "../../src/sync/rows.js";
import { moneyFromQ, roundedQ } from "../../src/sync/schema.js";
import { parseSyncTarget, redactUrl, resolveSyncTarget, scrub } from "../../src/sync/target.js";
import { pgAvailable, pgDest, sqliteDest, type TestDest } from "./destinations.js";

describe("sync destinations", () => {
  it("parses sqlite:PATH (relative, absolute, sqlite:///) and postgres URLs with ?schema", () => {
    expect(parseSyncTarget("sqlite:./partner.sqlite", "--to")).toMatchObject({
      kind: "sqlite",
      path: "./partner.sqlite",
    });
    expect(parseSyncTarget("sqlite:///data/p.sqlite", "--to")).toMatchObject({
      kind: "sqlite",
      path: "/data/p.sqlite",
    });
    const pg = parseSyncTarget(
      "postgres://bi:s3cr%40t@db.example.com:5433/partner?schema=copy&sslmode=require",
      "--to",
    );
    expect(pg).toMatchObject({ kind: "postgres", schema: "copy" });
    if (pg.kind !== "postgres") throw new Error("postgres expected");
    expect(pg.url).not.toContain("schema=");
    expect(pg.url).toContain("sslmode=require");
    expect(pg.label).not.toContain("s3cr");
    expect(pg.label).toContain("bi:***@db.example.com:5433/partner");
    expect(parseSyncTarget("postgresql://h/db", "--to")).toMatchObject({
      kind: "postgres",
      schema: "public",
    });
  });

  it("never shows a password: labels, refusals and driver messages are scrubbed", () => {
    expect(redactUrl("postgres://u:pw-123@h/db?password=other")).toBe("postgres://u:***@h/db?password=***");
    const t = parseSyncTarget("postgres://u:pw-123@h/db", "--to");
    expect(scrub(`connect failed for postgres://u:pw-123@h/db (pw-123)`, t)).not.toContain("pw-123");
    expect(() => parseSyncTarget("mysql://u:pw-123@h/db", "--to")).toThrow(/must be sqlite:PATH/);
    try {
      parseSyncTarget("mysql://u:pw-123@h/db", "--to");
    } catch (e) {
      expect(String((e as Error).message)).not.toContain("pw-123");
    }
  });

  it("--to wins over PARTNER_SYNC_TO, which wins over ./partner.sqlite", () => {
    expect(resolveSyncTarget("sqlite:a.db", { PARTNER_SYNC_TO: "sqlite:b.db" }).label).toBe("sqlite:a.db");
    expect(resolveSyncTarget(undefined, { PARTNER_SYNC_TO: "sqlite:b.db" }).label).toBe("sqlite:b.db");
    expect(resolveSyncTarget(undefined, {}).label).toBe("sqlite:./partner.sqlite");
  });
});

describe("sync rows", () => {
  it("days in the reporting time zone equal the service's, across DST changes and odd offsets", () => {
    for (const tz of ["America/New_York", "Europe/Berlin", "Asia/Kathmandu", "Australia/Lord_Howe", "UTC"]) {
      const day = dayInZone(tz);
      // Every 31 minutes over a year, DST changes included, and around each local midnight.
      const start = Date.UTC(2025, 0, 1);
      for (let ms = start; ms < start + 365 * 86_400_000; ms += 31 * 60_000 + 13_000) {
        const iso = new Date(ms).toISOString();
        const want = dayOfMs(ms, tz);
        if (day(iso) !== want) expect(`${tz} ${iso} → ${day(iso)}`).toBe(want);
      }
    }
  });

  it("decimals as canonical text and exact scaled integers", () => {
    expect(decimalText(0.1)).toBe("0.1");
    expect(decimalText("4.50")).toBe("4.5");
    expect(scaled(0.1235, 4)).toBe(1235);
    expect(scaled(4.99, 2)).toBe(499);
    expect(scaled("0.12345", 4)).toBeNull();
  });

  it("keeps one row per key (the last) within a page", () => {
    const rows = [
      ["a", 1],
      ["b", 1],
      ["a", 2],
    ];
    expect(lastPerKey(rows, [0])).toEqual([
      ["b", 1],
      ["a", 2],
    ]);
  });
});

// The views compute commission on scaled integers; here the same SQL against decimal.js half-even.
const dialects: ("sqlite" | "postgres")[] = pgAvailable() ? ["sqlite", "postgres"] : ["sqlite"];
describe.each(dialects)("commission arithmetic in %s", (dialect) => {
  let d: TestDest | undefined;
  afterAll(async () => d?.close());

  it("equals the service's rate x price x count rounded once, half-even to 4 places", async () => {
    d = dialect === "sqlite" ? sqliteDest() : await pgDest();
    const p = (i: number) => (dialect === "sqlite" ? `CAST(?${i} AS INTEGER)` : `$${i}::bigint`);
    const sql = `SELECT ${moneyFromQ("q", dialect)} FROM (SELECT ${roundedQ(`${p(1)} * ${p(2)} * ${p(3)}`)} AS q) t`;
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const cases: [number, number, number][] = [
      [1235, 350, 1], // 0.43225: a tie, rounds down to even
      [1235, 350, 3], // 1.29675: a tie, rounds up to even
      [1, 1, 50], // 0.00005: tie at zero
      [1, 1, 150], // 0.00015 → 0.0002
      [10000, 10_000_000, 10_000_000], // the largest: 1 x 100,000 x 10,000,000
      [0, 499, 12],
    ];
    for (let i = 0; i < 300; i++)
      cases.push([rnd(10001), rnd(10_000_001), rnd(3) === 0 ? rnd(100) : rnd(10_000_001)]);
    for (const [rateE4, cents, n] of cases) {
      const want = estimatedCommission(rateE4 / 10000, cents / 100, n);
      const got = (await d.query(sql, [rateE4, cents, n]))[0]![0];
      if (String(got) === "" || Number(got) !== want.toNumber() || !want.eq(String(got)))
        expect(`${rateE4}e-4 x ${cents}c x ${n} = ${got}`).toBe(want.toFixed(4));
    }
  });
});
