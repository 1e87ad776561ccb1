// Records without quotes are split without csv-parse (plainCells): whenever plainCells answers, its
// cells are exactly csv-parse's for the same record and options; it declines every record with a
// quote, with a field csv-parse would trim, or too long.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { MAX_RECORD_BYTES, parseOptions, plainCells } from "../../src/csv/read.js";
// The sandbox's seeded generator (mulberry32), so a failure can be replayed.
import { prng as rng } from "../../src/sandbox/simulate.js";

// Letters, every candidate delimiter, spaces and the other characters csv-parse trims or treats
// specially (tab, NBSP, BOM, ideographic space, line separator, form feed), a quote, NUL, non-ASCII.
const ALPHABET = [
  "a",
  "Z",
  "0",
  "ü",
  "😀",
  ",",
  ";",
  "\t",
  "|",
  " ",
  "\u00a0",
  "\ufeff",
  "\u3000",
  "\u2028",
  "\f",
  '"',
  "\u0000",
  "'",
  "=",
];
const END = ["", "\n", "\r\n", "\r"];

const csvParse = (text: string, d: string) => parse(text, parseOptions(d)) as string[][];

describe("plainCells", () => {
  it("agrees with csv-parse on 20,000 random records, for every delimiter", () => {
    const next = rng(20261123);
    let answered = 0;
    for (let n = 0; n < 20_000; n++) {
      const d = [",", ";", "\t", "|"][n % 4]!;
      const len = 1 + Math.floor(next() * 30);
      let body = "";
      for (let i = 0; i < len; i++) {
        // Mostly letters and delimiters, so that many records are plain.
        const r = next();
        body +=
          r < 0.55
            ? "abc"[Math.floor(next() * 3)]
            : r < 0.75
              ? d
              : ALPHABET[Math.floor(next() * ALPHABET.length)];
      }
      const text = body + END[n % END.length]!;
      const mine = plainCells(text, d);
      if (mine === undefined) continue;
      answered++;
      expect({ text, d, cells: mine }).toEqual({ text, d, cells: csvParse(text, d)[0] });
    }
    // The comparison means something only if plainCells answered for a good share of them.
    expect(answered).toBeGreaterThan(5_000);
  });

  it("declines a quote, a trimmable edge or a long record; splits a plain one", () => {
    expect(plainCells('a,"b",c\n', ",")).toBeUndefined();
    expect(plainCells("a, b,c\n", ",")).toBeUndefined();
    expect(plainCells("a,b\u00a0,c", ",")).toBeUndefined();
    expect(plainCells(`${"x".repeat(MAX_RECORD_BYTES)}\n`, ",")).toBeUndefined();
    expect(plainCells("cr-1,Zoë Adams,,@zoe,true\r\n", ",")).toEqual([
      "cr-1",
      "Zoë Adams",
      "",
      "@zoe",
      "true",
    ]);
    expect(plainCells("a;b|c;\n", ";")).toEqual(["a", "b|c", ""]);
  });
});
