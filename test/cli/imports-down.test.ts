// Imports point down: run modules (src/commands/) never import the declarations (src/cli/) or the
// program that assembles them (src/program.ts, src/main.ts). What both need lives below, in
// src/commands/shared/ or src/spec/. And the CLI's code never reaches into the sandbox for a rule
// or a helper (those live in src/spec/ or a shared leaf): only the modules that start or control a
// sandbox import it.
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

/** The imports of `file` (whose text is `source`) that reach into one of `places`, as "file → target". */
function importsInto(places: string[], file: string, source: string): string[] {
  return relativeImports(source)
    .map((spec) => resolve(dirname(file), spec.replace(/\.js$/, ".ts")))
    .filter((target) => places.some((a) => target === a || target.startsWith(`${a}/`)))
    .map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`);
}

/** The imports of `file` (whose text is `source`) that reach above src/commands. */
const upward = (file: string, source: string) => importsInto(ABOVE, file, source);

const SANDBOX = join(SRC, "sandbox");
/** The CLI's imports of the sandbox, each there to start or control one. */
const STARTS_OR_CONTROLS_THE_SANDBOX = [
  "context.ts → sandbox/embedded.ts", // --sandbox: the embedded sandbox started for one command
  "commands/sandbox/start.ts → sandbox/server.ts", // sandbox start: the server
  "commands/sandbox/start.ts → sandbox/embedded.ts", // sandbox start --data-dir: the data dir's lock
  "commands/sandbox/start.ts → sandbox/faults.ts", // sandbox start --faults: the fault grammar
  "commands/sandbox/faults.ts → sandbox/faults.ts", // sandbox faults: the fault kinds and grammar
];

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

describe("the CLI imports the sandbox only to start or control it", () => {
  it("the check finds an import of the sandbox, and lets a start through", () => {
    const file = join(SRC, "sync", "rows.ts");
    expect(importsInto([SANDBOX], file, 'import { dayOfMs } from "../sandbox/domain/dates.js";')).toEqual([
      "sync/rows.ts → sandbox/domain/dates.ts",
    ]);
    expect(importsInto([SANDBOX], file, 'import { dayOfMs } from "../spec/days.js";')).toEqual([]);
  });

  it("no file outside src/sandbox imports it, but those that start or control a sandbox", () => {
    const files = tsFiles(SRC).filter((f) => !f.startsWith(`${SANDBOX}/`));
    const found = files.flatMap((f) => importsInto([SANDBOX], f, readFileSync(f, "utf8")));
    expect(found.filter((i) => !STARTS_OR_CONTROLS_THE_SANDBOX.includes(i))).toEqual([]);
    // Each allowed import is still there (an entry for a gone import would hide a new one).
    expect(STARTS_OR_CONTROLS_THE_SANDBOX.filter((i) => !found.includes(i))).toEqual([]);
  });
});

/** A cycle in `graph` (file → the files it imports), as the files around it, or undefined. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string): string[] | undefined => {
    if (state.get(f) === "done") return undefined;
    if (state.get(f) === "open") return [...stack.slice(stack.indexOf(f)), f];
    state.set(f, "open");
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      const c = visit(t);
      if (c) return c;
    }
    stack.pop();
    state.set(f, "done");
    return undefined;
  };
  for (const f of graph.keys()) {
    const c = visit(f);
    if (c) return c;
  }
  return undefined;
}

/** Imports that exist at run time: type-only imports and re-exports are erased by the compiler. */
function runtimeImports(file: string, source: string): string[] {
  const values = source.replace(/^\s*(?:import|export)\s+type\s[^;]*?\sfrom\s+["'][^"']+["'];?/gms, "");
  return relativeImports(values).map((spec) => resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
}

describe("no import cycles in src/ (what `npx madge --circular src` checks, with .madgerc)", () => {
  it("the check finds a cycle through a dynamic import, and not through a type-only one", () => {
    const a = join(SRC, "a.ts");
    const b = join(SRC, "b.ts");
    const cyclic = new Map([
      [a, runtimeImports(a, 'const m = await import("./b.js");')],
      [b, runtimeImports(b, 'import { x } from "./a.js";')],
    ]);
    expect(findCycle(cyclic)).toEqual([a, b, a]);
    const typeOnly = new Map([
      [a, runtimeImports(a, 'const m = await import("./b.js");')],
      [b, runtimeImports(b, 'import type {\n  X,\n} from "./a.js";\nexport type { Y } from "./a.js";')],
    ]);
    expect(findCycle(typeOnly)).toBeUndefined();
  });

  it("no module of src/ reaches itself through its imports", () => {
    const graph = new Map(tsFiles(SRC).map((f) => [f, runtimeImports(f, readFileSync(f, "utf8"))]));
    expect(findCycle(graph)?.map((f) => relative(SRC, f))).toBeUndefined();
  });
});
