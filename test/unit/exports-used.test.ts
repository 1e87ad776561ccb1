// No dead exports: every function, class or constant that a module of src/ exports is used by another
// file (src/, test/, scripts/, bin/, bench/). What only its own module uses is not exported; what
// nothing uses is gone. A word search, so a name that merely appears elsewhere (in a comment, as a
// property) counts as used: the check can miss a dead export, never invent one.
// An export used only by tests stays when the test is meaningful: a unit test of the rule it holds
// (the money rounding, the signature header, the page checks), listed by the report of issue 24.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PLACES = ["src", "test", "scripts", "bin", "bench"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : /\.(ts|mjs|js)$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

const EXPORTED =
  /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z_$][\w$]*)/gm;

/** The exported values of each file in `texts` (path → text) under src/ that no other file names. */
function unusedExports(texts: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of texts) {
    if (!file.startsWith("src/")) continue;
    for (const m of text.matchAll(EXPORTED)) {
      const word = new RegExp(`(?<![\\w$])${m[1]!.replace(/\$/g, "\\$")}(?![\\w$])`);
      const used = [...texts].some(([other, t]) => other !== file && word.test(t));
      if (!used) found.push(`${file}: ${m[1]}`);
    }
  }
  return found;
}

describe("exports are used", () => {
  it("the check finds an export no other file names, and not one another file uses", () => {
    const texts = new Map([
      [
        "src/a.ts",
        "export function helper() {}\nexport const used = 1;\nexport async function own() {}\nown();",
      ],
      ["src/b.ts", 'import { used } from "./a.js";'],
    ]);
    expect(unusedExports(texts)).toEqual(["src/a.ts: helper", "src/a.ts: own"]);
  });

  it("every value exported by src/ is used by another file", () => {
    const files = PLACES.flatMap((p) => sourceFiles(join(ROOT, p)));
    expect(files.length).toBeGreaterThan(300);
    const texts = new Map(files.map((f) => [relative(ROOT, f), readFileSync(f, "utf8")]));
    expect(unusedExports(texts)).toEqual([]);
  });
});
