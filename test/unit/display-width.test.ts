// displayWidth (src/io/table.ts) answers printable ASCII itself, coloured or not, so that string-width
// (costly to load) is reached only by other text. Its answers must be string-width's for any text.
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import { displayWidth, fitTable, truncate } from "../../src/io/table.js";

const SAMPLES = [
  "",
  "plain ascii",
  " ~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./ 0123456789 ABC xyz",
  "\u001b[1mbold\u001b[22m",
  "\u001b[32mactive\u001b[39m  \u001b[2mended\u001b[22m",
  "\u001b[38;5;208morange\u001b[0m",
  "\u001b[?25lhidden cursor",
  "\u001b]8;;https://example.com\u0007link\u001b]8;;\u0007",
  "\u009b31mred",
  "tab\there",
  "line\nbreak",
  "caf\u00e9",
  "cafe\u0301",
  "Zo\u00eb M\u00fcller",
  "\u6771\u4eac\u90fd",
  "\uff21\uff22",
  "\ud83d\ude00 grin",
  "\ud83d\udc69\u200d\ud83d\udcbb dev",
  "1\ufe0f\u20e3",
  "\u1100\u1161\u11a8",
  "\u0000\u0007\u007f",
  "\u001b[1m\u6771\u001b[22m",
  "\u001b\u001b[0m[0m",
];

describe("displayWidth", () => {
  it.each(SAMPLES.map((s) => [JSON.stringify(s), s]))("%s: the width string-width gives", (_, s) => {
    expect(displayWidth(s!)).toBe(stringWidth(s!));
  });

  it("every single character of the first 0x3000 code points: the width string-width gives", () => {
    const off: string[] = [];
    for (let cp = 0; cp < 0x3000; cp++) {
      const ch = String.fromCodePoint(cp);
      for (const s of [ch, `a${ch}`, `\u001b[1m${ch}\u001b[22m`])
        if (displayWidth(s) !== stringWidth(s)) off.push(JSON.stringify(s));
    }
    expect(off).toEqual([]);
  });

  it("tables and truncation of wide text are measured in columns", () => {
    expect(truncate("\u6771\u4eac\u90fd\u5e81", 5)).toBe("\u6771\u4eac\u2026");
    const t = fitTable([{ header: "name" }, { header: "n" }], [["\u6771\u4eac", "1"]], { color: false });
    expect(t.text).toBe("name  n\n\u6771\u4eac  1\n");
  });
});
