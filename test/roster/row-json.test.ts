// The import's fast path (rosterRowJson: a plain row straight to its batch item's JSON text) agrees
// with the full row check: on every row it accepts, checkRosterRow accepts the same row with the same
// externalId and an item whose JSON.stringify is byte for byte the text written; the rows it leaves
// (undefined) are left untouched in the output. The batch body built from those texts is the bytes
// JSON.stringify gives for {creators: items}.
import { describe, expect, it } from "vitest";
import { batchBody } from "../../src/api/creators.js";
import { RowBatch } from "../../src/commands/roster/import/state.js";
import { checkRosterRow, mapColumns, parseColumnFlags, rosterRowJson } from "../../src/csv/roster.js";
import { LIMITS } from "../../src/spec/limits.js";
import { prng } from "../../src/sandbox/simulate.js";

/** Seeded (mulberry32), so a failing case can be run again. */
const rng = (seed: number) => prng(seed);

const TEXTS = [
  "",
  " ",
  "x",
  "cr-000001",
  "  padded  ",
  "Creator 7 Müller",
  "Søren 张伟",
  "😀 emoji",
  'with "quotes"',
  "back\\slash",
  "tab\there",
  "two\nlines",
  "cr\rhere",
  "sep\u2028x",
  "nul\u0000x",
  "bell\u0007",
  "lone \ud800 surrogate",
  "'@escaped",
  "''=x",
  "'plain",
  "\u00a0nbsp\u00a0",
  "a".repeat(LIMITS.creatorExternalIdMax),
  "a".repeat(LIMITS.creatorExternalIdMax + 1),
  "a".repeat(LIMITS.creatorNameMax + 1),
  "creator1@example.com",
  " a@b.co ",
  "not-an-email",
  "a@b",
  "ü@münchen.de",
  "@handle",
];
const ACTIVE = ["", " ", "true", "false", "TRUE", " yes ", "0", "maybe", "'true", "\ttrue"];

const pick = <T>(r: () => number, list: readonly T[]) => list[Math.floor(r() * list.length)]!;

/** Values that pass, per column, so that most rows take the fast path. */
const GOOD: Record<string, string[]> = {
  externalId: ["cr-000001", " padded ", "Søren"],
  name: ["Creator 7 Müller", "", " x "],
  email: ["creator1@example.com", "", " a@b.co "],
  handle: ["@handle", "", " h "],
  active: ["true", "false", ""],
};

const cell = (r: () => number, header: string | undefined) => {
  const good = GOOD[header ?? ""];
  if (good && r() < 0.75) return pick(r, good);
  return header === "active" ? pick(r, ACTIVE) : pick(r, TEXTS);
};

describe("rosterRowJson", () => {
  const layouts = [
    ["externalId", "name", "email", "handle", "active"],
    ["active", "handle", "externalId", "notes", "email", "name"],
    ["externalId", "email"],
    ["name", "externalId", "", ""],
  ];
  for (const headers of layouts) {
    it(`writes the bytes of JSON.stringify(checkRosterRow(...).item) (${headers.join(",")})`, () => {
      const map = mapColumns("f.csv", headers, parseColumnFlags([]));
      const r = rng(headers.length * 7919);
      let fast = 0;
      let slowOnly = 0;
      for (let n = 0; n < 6000; n++) {
        const width = r() < 0.1 ? headers.length + (r() < 0.5 ? -1 : 1) : headers.length;
        const cells = Array.from({ length: Math.max(0, width) }, (_, i) => cell(r, headers[i]));
        const clearEmpty = r() < 0.5;
        const out = ["before"];
        const comma = r() < 0.5;
        const id = rosterRowJson(cells, map, clearEmpty, out, comma);
        const check = checkRosterRow(cells, map, { clearEmpty });
        const label = JSON.stringify({ cells, clearEmpty });
        if (id === undefined) {
          expect(out, label).toEqual(["before"]);
          slowOnly++;
          continue;
        }
        fast++;
        expect(check.reasons, label).toEqual([]);
        expect(check.externalId, label).toBe(id);
        expect(out[0]).toBe("before");
        expect(out.slice(1).join(""), label).toBe(`${comma ? "," : ""}${JSON.stringify(check.item)}`);
      }
      // Both paths are exercised.
      expect(fast).toBeGreaterThan(300);
      expect(slowOnly).toBeGreaterThan(300);
    });
  }

  it("takes the common roster row, and the batch body is JSON.stringify({creators}) byte for byte", () => {
    const map = mapColumns(
      "f.csv",
      ["externalId", "name", "email", "handle", "active"],
      parseColumnFlags([]),
    );
    const items: string[] = [];
    const parsed: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      const cells = [
        `cr-${i}`,
        `Creator ${i} Müller`,
        `creator${i}@example.com`,
        `@creator${i}`,
        i % 10 === 9 ? "false" : "true",
      ];
      const out: string[] = [];
      expect(rosterRowJson(cells, map, false, out, i > 0)).toBe(`cr-${i}`);
      items.push(out.join(""));
      parsed.push(checkRosterRow(cells, map, { clearEmpty: false }).item);
    }
    expect(batchBody(items.join(""))).toBe(JSON.stringify({ creators: parsed }));
    expect(JSON.parse(batchBody(items.join("")))).toEqual({ creators: parsed });
    // The bytes sent: the same text in UTF-8, however the parts were written into the buffer.
    for (const pool of [[], [Buffer.alloc(16)], [Buffer.alloc(1 << 20)]]) {
      const batch = new RowBatch(pool);
      for (const item of items) {
        batch.json.push(item);
        for (let k = 0; k < 300; k++) batch.json.push("");
        batch.spillSometimes();
      }
      const { body } = batch.body();
      expect(body.equals(Buffer.from(JSON.stringify({ creators: parsed }), "utf8"))).toBe(true);
    }
  });

  it("a body that outgrows its buffer is moved to a larger one with the same bytes", () => {
    const map = mapColumns("f.csv", ["externalId", "name", "email"], parseColumnFlags([]));
    const batch = new RowBatch([]);
    const parsed: unknown[] = [];
    for (let i = 0; i < 6000; i++) {
      const cells = [`id-${i}`, `Ünïcödé ${"n".repeat(i % 50)} 张伟 ${i}`, `c${i}@example.com`];
      expect(rosterRowJson(cells, map, false, batch.json, i > 0)).toBe(`id-${i}`);
      batch.spillSometimes();
      parsed.push(checkRosterRow(cells, map, { clearEmpty: false }).item);
    }
    const { body } = batch.body();
    expect(body.length).toBeGreaterThan(256 * 1024);
    expect(body.equals(Buffer.from(JSON.stringify({ creators: parsed }), "utf8"))).toBe(true);
  });
});
