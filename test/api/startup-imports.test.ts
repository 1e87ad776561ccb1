// The start-up path of the built program (static imports from dist/main.js) must not reach the HTTP
// stack or other heavy packages: each costs about one bare-node start (docs/benchmarks.md). Needs a
// build, which test/global-setup.ts makes once per run, like the e2e tests.
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MAIN = fileURLToPath(new URL("../../dist/main.js", import.meta.url));

/** Packages reached through static imports only (dynamic import() is what keeps things lazy). */
function staticPackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const src = readFileSync(file, "utf8");
    for (const m of src.matchAll(/^import\s+(?:[^;]*?\sfrom\s+)?["']([^"']+)["']/gm)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) walk(resolve(dirname(file), spec));
      else if (!spec.startsWith("node:"))
        packages.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
    }
  };
  walk(entry);
  return packages;
}

describe.skipIf(!existsSync(MAIN))("start-up imports of dist/main.js", () => {
  it("no HTTP client, prompts, CSV, config store, sandbox or table packages", () => {
    const pkgs = staticPackages(MAIN);
    expect(pkgs.has("commander")).toBe(true);
    for (const heavy of [
      "undici",
      "@inquirer/prompts",
      "csv-parse",
      "csv-stringify",
      "conf",
      "proper-lockfile",
      "find-my-way",
      "cli-table3",
      "cli-progress",
      "decimal.js",
      "temporal-polyfill",
      "jq-wasm",
      "exceljs",
    ]) {
      expect(pkgs.has(heavy), `${heavy} is imported at start-up`).toBe(false);
    }
  });

  // The range flags' rules live in the zod-free src/spec/ranges.ts for this reason.
  it("no zod at start-up", () => {
    expect(staticPackages(MAIN).has("zod")).toBe(false);
  });
});
