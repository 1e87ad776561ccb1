// The CSV fast path of the export renders exactly what the general CSV writer (formatCsv, with the
// export rules: formula escapes, quoting, identifiers as text) renders for the same cells.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { type Cell, formatCsv, unescapeFormulaCell } from "../../src/csv/write.js";
import {
  type Change,
  redemptionCells as cells,
  BufferPool,
  renderRowBuffer,
  csvRow,
  REDEMPTION_COLUMNS,
  renderRows,
} from "../../src/export/redemption-rows.js";
import type { Redemption } from "../../src/spec/redemptions.js";
// The sandbox's seeded generator (mulberry32), so a failure can be replayed.
import { prng as rng } from "../../src/sandbox/simulate.js";

// Characters that matter to CSV and to formula escapes, plus plain and non-ASCII text.
const SPECIAL = ['"', ",", "\r", "\n", "\r\n", "=", "+", "-", "@", "\t", "'", "''", " ", ";"];
const FULL_WIDTH = ["\uFF1D", "\uFF0B", "\uFF0D", "\uFF20"];
const UNICODE = ["é", "ß", "日本", "😀", "\u00a0", "\u2028", "\ud800", "Ω"];
const PLAIN = ["a", "Z", "0", "9", "bench", "00123", "-5", "1e3", "null", "true"];

/** Random text; `wellFormed`: no lone surrogate (a CSV parser reading UTF-8 gives U+FFFD for it). */
function text(r: () => number, wellFormed = false): string {
  const pools = [SPECIAL, FULL_WIDTH, wellFormed ? UNICODE.filter((u) => u !== "\ud800") : UNICODE, PLAIN];
  const n = Math.floor(r() * 6);
  let s = "";
  for (let i = 0; i < n; i++) {
    const pool = pools[Math.floor(r() * pools.length)]!;
    s += pool[Math.floor(r() * pool.length)]!;
  }
  return s;
}

/** A string, sometimes empty, null or (to exercise the fallback) a value of another kind. */
function value(r: () => number, nullable: boolean, textOnly = false): never {
  const x = r();
  if (x < 0.08) return "" as never;
  if (nullable && x < 0.16) return null as never;
  if (textOnly) return text(r, true) as never;
  if (x < 0.18) return undefined as never;
  if (x < 0.2) return (r() < 0.5 ? -Math.floor(r() * 100) : r() * 10) as never;
  if (x < 0.21) return { a: text(r) } as never;
  if (x < 0.22) return (r() < 0.5) as never;
  return text(r) as never;
}

function redemption(r: () => number, textOnly = false): Redemption {
  const v = (nullable = false) => value(r, nullable, textOnly);
  return {
    id: v(),
    serializedGs1: v(),
    redeemedAt: v(),
    recordedAt: v(),
    countingState: v(),
    exclusion: r() < 0.3 ? null : { excludedAt: v(), reason: v(true) },
    campaign: { id: v(), externalReference: v(true), name: v() },
    offer: { baseGs1: v(), title: v(true) },
    brand: { id: v(), name: v() },
    creator: r() < 0.3 ? null : { externalId: v(), name: v() },
    retailer: r() < 0.3 ? null : { emailDomain: v(), name: v(true) },
  };
}

function change(r: () => number): Change | undefined {
  if (r() < 0.5) return undefined;
  const type = r() < 0.4 ? "redemption.excluded" : r() < 0.7 ? "redemption.restored" : text(r);
  return { type, eventId: value(r, true), occurredAt: value(r, true) };
}

const reference = (rows: { redemption: Redemption; change?: Change | undefined }[]) =>
  formatCsv(rows.map((x) => cells(x.redemption, x.change)));

describe("CSV rows of redemptions", () => {
  it("are byte-identical to formatCsv for 20,000 random redemptions", () => {
    const r = rng(20261122);
    for (let page = 0; page < 40; page++) {
      const rows = Array.from({ length: 500 }, () => ({ redemption: redemption(r), change: change(r) }));
      const fast = renderRows("csv", rows);
      expect(Buffer.from(fast, "utf8").equals(Buffer.from(reference(rows), "utf8"))).toBe(true);
    }
  });

  it("are byte-identical to formatCsv for each edge cell in each column", () => {
    const edges: Cell[] = [
      "",
      null,
      undefined,
      '"',
      '""',
      'a"b',
      "a,b",
      ",",
      "\r",
      "\n",
      "\r\n",
      "a\rb",
      "a\nb",
      "=1+1",
      "+1",
      "-1",
      "@maria",
      "\tx",
      "\rx",
      "'=x",
      "''@x",
      "'x",
      "'",
      "x'=",
      "\uFF1Dx",
      "\uFF0Bx",
      "\uFF0Dx",
      "\uFF20x",
      '=HYPERLINK("http://x","y")',
      "@a,b\nc",
      "Crème brûlée 日本 😀",
      "\ud800",
      "00123450000280000002138",
      "2026-11-23T05:04:01Z",
      " leading space",
      -5,
      0,
      3.25,
      true,
      false,
      { k: "=v" },
      ["a", "b"],
    ];
    const base = redemption(rng(1));
    const keys = REDEMPTION_COLUMNS.length;
    for (let col = 0; col < keys; col++) {
      for (const e of edges) {
        const red = structuredClone(base);
        const ch: Change = {
          type: "redemption.excluded",
          eventId: "evt_1",
          occurredAt: "2026-01-01T00:00:00Z",
        };
        // Put the edge value into the column `col` (a change column puts it into the change).
        const set: Record<number, () => void> = {
          0: () => (red.id = e as never),
          1: () => (red.serializedGs1 = e as never),
          2: () => (red.redeemedAt = e as never),
          3: () => (red.recordedAt = e as never),
          4: () => (red.countingState = e as never),
          5: () => (red.exclusion = { excludedAt: e as never, reason: null }),
          6: () => (red.exclusion = { excludedAt: "2026-01-01T00:00:00Z", reason: e as never }),
          7: () => (red.campaign = { ...red.campaign, id: e as never }),
          8: () => (red.campaign = { ...red.campaign, externalReference: e as never }),
          9: () => (red.campaign = { ...red.campaign, name: e as never }),
          10: () => (red.offer = { ...red.offer, baseGs1: e as never }),
          11: () => (red.offer = { ...red.offer, title: e as never }),
          12: () => (red.brand = { ...red.brand, id: e as never }),
          13: () => (red.brand = { ...red.brand, name: e as never }),
          14: () => (red.creator = { externalId: e as never, name: "n" }),
          15: () => (red.creator = { externalId: "x", name: e as never }),
          16: () => (red.retailer = { emailDomain: e as never, name: null }),
          17: () => (red.retailer = { emailDomain: "example.com", name: e as never }),
          // A change's type is always text (the event envelope says so).
          18: () => (ch.type = `redemption.${typeof e === "string" ? e : String(e)}`),
          19: () => (ch.eventId = e as never),
          20: () => (ch.occurredAt = e as never),
        };
        set[col]!();
        const rows = [{ redemption: red, change: col >= 18 ? ch : undefined }];
        expect([col, renderRows("csv", rows)]).toEqual([col, reference(rows)]);
      }
    }
  });

  it("read back with a CSV parser give the cells, formula escapes undone", () => {
    const r = rng(7);
    // Text and null cells only: what the API answers.
    const rows = Array.from({ length: 2000 }, () => redemption(r, true));
    const back = parse(rows.map((x) => csvRow(x)).join(""), { relax_quotes: false }) as string[][];
    expect(back.length).toBe(rows.length);
    back.forEach((got, i) => {
      expect(got.map(unescapeFormulaCell)).toEqual(cells(rows[i]!).map((c) => (c ?? "") as string));
    });
  });

  it("rendered into one buffer per page (pooled or not) are the same bytes, each row ending where `ends` says", () => {
    const r = rng(99);
    const pool = new BufferPool(2);
    for (const format of ["csv", "ndjson"] as const) {
      for (const n of [0, 1, 2, 500, 30, 700]) {
        const reds = Array.from({ length: n }, () => redemption(r, true));
        const want = Buffer.from(
          renderRows(
            format,
            reds.map((redemption) => ({ redemption })),
          ),
          "utf8",
        );
        for (const p of [undefined, pool]) {
          const { buf, ends } = renderRowBuffer(format, reds, p);
          expect(ends).toHaveLength(n);
          expect(buf.subarray(0, ends.at(-1) ?? 0).equals(want)).toBe(true);
          reds.forEach((red, i) => {
            const row = buf.subarray(i === 0 ? 0 : ends[i - 1], ends[i]);
            expect(row.toString("utf8")).toBe(renderRows(format, [{ redemption: red }]));
          });
          // Given back, the buffer is handed out again (overwritten) for the next page.
          p?.give(buf);
        }
      }
    }
  });

  it("a buffer pool hands out given-back buffers that are large enough, and keeps only the largest few", () => {
    const pool = new BufferPool(2);
    const a = pool.take(1000);
    const b = pool.take(20_000);
    expect(a.length).toBeGreaterThanOrEqual(1000);
    expect(b.length).toBeGreaterThanOrEqual(20_000);
    pool.give(a);
    pool.give(b);
    expect(pool.take(10_000)).toBe(b);
    expect(pool.take(100)).toBe(a);
    const big = pool.take(50_000);
    expect([a, b]).not.toContain(big);
    for (const x of [a, b, big, pool.take(1), pool.take(1)]) pool.give(x);
    // Five given back, two kept: the two largest.
    const kept = [pool.take(1), pool.take(1), pool.take(1)];
    expect(kept[0]).toBe(big);
    expect(kept[1]).toBe(b);
    expect([a, b, big]).not.toContain(kept[2]);
  });
});
