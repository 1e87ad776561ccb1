// The terminal table's fitting rules: natural widths when they fit, low-value columns dropped in
// their order, then the widest truncatable columns cut with an ellipsis; --wide and no width keep
// everything; colour only in the header and state cells.
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { fitTable, stateStyle, type TableColumn, truncate } from "../../src/io/table.js";

const COLS: TableColumn[] = [
  { header: "id", drop: 1 },
  { header: "ref" },
  { header: "name", truncate: true },
  { header: "status", color: stateStyle },
  { header: "brand", drop: 2, truncate: true },
];
const ROWS = [
  [
    "3f1c0c1e-0000-4000-8000-000000000001",
    "spring-oats",
    "Spring oats launch for the whole family",
    "active",
    "Crunchy Oats Co.",
  ],
  ["3f1c0c1e-0000-4000-8000-000000000002", "soda-zero", "Soda Zero", "paused", "Sparkle Soda"],
];
const widest = (text: string) =>
  Math.max(
    ...text
      .trimEnd()
      .split("\n")
      .map((l) => stringWidth(l)),
  );

describe("fitTable", () => {
  it("without a width (piped, --wide): every column at full width, two spaces apart, no border", () => {
    const t = fitTable(COLS, ROWS, { color: false });
    expect(t.hidden).toEqual([]);
    expect(t.text.split("\n")[0]).toMatch(/^id {36}ref {10}name {37}status {2}brand$/);
    expect(t.text).toContain("Spring oats launch for the whole family");
    expect(fitTable(COLS, ROWS, { color: false, width: 40, wide: true }).text).toBe(t.text);
  });

  it("drops the low-value columns in their order before cutting anything", () => {
    const t = fitTable(COLS, ROWS, { color: false, width: 90 });
    expect(t.hidden).toEqual(["id"]);
    expect(t.text).toContain("Spring oats launch for the whole family");
    expect(widest(t.text)).toBeLessThanOrEqual(90);
  });

  it("then cuts the widest truncatable column with an ellipsis", () => {
    const t = fitTable(COLS, ROWS, { color: false, width: 50 });
    expect(t.hidden).toEqual(["id", "brand"]);
    expect(t.text).toContain("Spring oats launch for the w…");
    expect(t.text).not.toContain("whole family");
    expect(t.text).toContain("spring-oats"); // an identifier column keeps its width
    expect(widest(t.text)).toBeLessThanOrEqual(50);
  });

  it("never draws a line wider than the width, even when nothing more can be cut", () => {
    const t = fitTable(COLS, ROWS, { color: false, width: 20 });
    expect(widest(t.text)).toBeLessThanOrEqual(20);
  });

  it("fits by content at 80 columns: long headers over short numbers give way before names are cut (issue 26)", () => {
    // reports creators' columns that are never dropped, as they were headed.
    const cols: TableColumn[] = [
      { header: "creatorExternalId" },
      { header: "creatorName", truncate: true },
      { header: "campaignExternalReference", truncate: true },
      { header: "verifiedRedemptions" },
      { header: "estimatedCommission" },
    ];
    const rows = [
      ["cr-0001", "Ada Lovelace-Byron", "spring-oats", "12", "3.6000"],
      ["cr-0002", "Grace Brewster Hopper", "spring-oats", "7", "2.1000"],
    ];
    const t = fitTable(cols, rows, { color: false, width: 80 });
    expect(t.hidden).toEqual([]);
    expect(widest(t.text)).toBeLessThanOrEqual(80);
    // Every name and reference whole; the headers wider than their numbers are the ones cut.
    for (const text of ["Ada Lovelace-Byron", "Grace Brewster Hopper", "spring-oats", "3.6000"])
      expect(t.text).toContain(text);
    const head = t.text.split("\n")[0]!;
    expect(head).toContain("creatorName");
    expect(head).toMatch(/verified\S*…/);
  });

  it("colour: bold headers and coloured states only", () => {
    const t = fitTable(COLS, ROWS, { color: true });
    const [head, first] = t.text.split("\n");
    expect(head).toContain("\u001b[1mid");
    expect(first).toContain("\u001b[32mactive");
    expect(first!.startsWith("3f1c0c1e")).toBe(true);
  });
});

describe("truncate", () => {
  it("counts display columns (wide characters take two) and ends with an ellipsis", () => {
    expect(truncate("abcdef", 6)).toBe("abcdef");
    expect(truncate("abcdef", 4)).toBe("abc…");
    expect(truncate("日本語テキスト", 5)).toBe("日本…");
  });
});
