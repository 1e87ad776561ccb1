// The database drivers load only inside `sync`: never on the start-up path of dist/main.js, and the
// build keeps them external packages (loaded from node_modules, with their native parts), not bundled.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const DRIVERS = ["libsql", "pg", "pg-copy-streams"];

function staticPackages(entry: string): Set<string> {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(/^import\s+(?:[^;]*?\sfrom\s+)?["']([^"']+)["']/gm)) {
      const spec = m[1]!;
      if (spec.startsWith(".")) walk(resolve(dirname(file), spec));
      else packages.add(spec);
    }
  };
  walk(entry);
  return packages;
}

describe.skipIf(!existsSync(join(DIST, "main.js")))("sync's drivers in dist/", () => {
  it("are not reached from dist/main.js by static imports", () => {
    const pkgs = staticPackages(join(DIST, "main.js"));
    for (const d of DRIVERS) expect(pkgs.has(d), `${d} is imported at start-up`).toBe(false);
  });

  it("are imported dynamically as external packages, not bundled", () => {
    const chunks = readdirSync(join(DIST, "chunks"))
      .filter((f) => f.endsWith(".js"))
      .map((f) => readFileSync(join(DIST, "chunks", f), "utf8"))
      .join("\n");
    for (const d of DRIVERS) expect(chunks, d).toContain(`import("${d}")`);
    // Bundled code of the drivers would carry their own sources.
    expect(chunks).not.toMatch(/databaseOpenWithSync|class Client extends EventEmitter/);
  });
});
