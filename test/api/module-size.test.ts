// The client stays split by concern (issue 24): no module of src/api over 300 lines, no import circle
// between them, and no wall-clock time in the retry loop or the client (their waits and deadlines go
// by the injected clock; only the transport's per-attempt I/O timeout uses a timer of its own).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const API = fileURLToPath(new URL("../../src/api/", import.meta.url));
const MAX_LINES = 300;

const files = readdirSync(API).filter((f) => f.endsWith(".ts"));
const text = (f: string) => readFileSync(join(API, f), "utf8");

/** The src/api modules a module imports (static, type-only, re-exports and dynamic import()). */
function apiImports(f: string): string[] {
  const out: string[] = [];
  for (const m of text(f).matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["']\.\/([\w-]+)\.js["']/gm))
    out.push(`${m[1]}.ts`);
  return out;
}

/** One import circle among `graph`'s modules, or undefined. */
function circle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === "done") return undefined;
    if (state.get(f) === "open") return [...path.slice(path.indexOf(f)), f];
    state.set(f, "open");
    path.push(f);
    for (const g of graph.get(f) ?? []) {
      const found = visit(g);
      if (found) return found;
    }
    path.pop();
    state.set(f, "done");
    return undefined;
  };
  for (const f of graph.keys()) {
    const found = visit(f);
    if (found) return found;
  }
  return undefined;
}

describe("src/api is split by concern", () => {
  it(`no module is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((f) => ({ f, lines: text(f).split("\n").length - (text(f).endsWith("\n") ? 1 : 0) }))
      .filter((x) => x.lines > MAX_LINES)
      .map((x) => `${x.f}: ${x.lines} lines`);
    expect(long).toEqual([]);
  });

  it("no import circle between its modules", () => {
    expect(circle(new Map(files.map((f) => [f, apiImports(f)])))).toBeUndefined();
  });

  it("the circle check finds one", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
    ]);
    expect(circle(g)).toEqual(["a.ts", "b.ts", "c.ts", "a.ts"]);
  });

  it("the retry loop and the client read no wall clock and set no timer", () => {
    for (const f of ["client.ts", "retry-loop.ts"]) {
      expect(text(f), f).not.toMatch(/\bDate\.now\(|new Date\(\)|setTimeout\(|performance\.now\(/);
    }
  });
});
