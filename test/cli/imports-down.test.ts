// Imports point down: run modules (src/commands/) never import the declarations (src/cli/) or the
// program that assembles them (src/program.ts, src/main.ts). What both need lives below, in
// src/commands/shared/ or src/spec/.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const ABOVE = [join(SRC, "cli"), join(SRC, "program.ts"), join(SRC, "main.ts")];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Relative specifiers of static imports, re-exports, type imports and dynamic import() calls. */
function relativeImports(source: string): string[] {
  const specs: string[] = [];
  const patterns = [
    /\bfrom\s+["'](\.[^"']+)["']/g,
    /\bimport\s*\(\s*["'](\.[^"']+)["']/g,
    /^\s*import\s+["'](\.[^"']+)["']/gm,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) specs.push(m[1]!);
  return specs;
}

/** The imports of `file` (whose text is `source`) that reach above src/commands. */
function upward(file: string, source: string): string[] {
  return relativeImports(source)
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, ".ts")))
    .filter((target) => ABOVE.some((a) => target === a || target.startsWith(`${a}/`)))
    .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`);
}

describe("src/commands imports nothing above it", () => {
  it("the check finds an upward import, static, type-only or dynamic", () => {
    const file = join(SRC, "commands", "reports", "summary.ts");
    expect(upward(file, 'import { checkRange } from "../../cli/range.js";')).toEqual([
      "commands/reports/summary.ts → cli/range.ts",
    ]);
    expect(upward(file, 'import type { Registrar } from "../../program.js";')).toHaveLength(1);
    expect(upward(file, 'const m = await import("../../cli/define.js");')).toHaveLength(1);
    expect(upward(file, 'import { checkRange } from "../shared/range.js";')).toEqual([]);
  });

  it("no file in src/commands imports src/cli, src/program.ts or src/main.ts", () => {
    const files = tsFiles(join(SRC, "commands"));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((f) => upward(f, readFileSync(f, "utf8")));
    expect(found).toEqual([]);
  });
});
