// The start-up path of the built program must not reach the HTTP stack or other heavy packages: each
// costs about one bare-node start (docs/benchmarks.md). The build bundles dependencies into dist/
// chunks, so "a package is loaded" means "a loaded file holds that package's code": read from each
// loaded file's source map (its `sources` name every node_modules file bundled into it). Needs a
// build, which test/global-setup.ts makes once per run, like the e2e tests.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const MAIN = join(ROOT, "dist", "main.js");
const BIN = join(ROOT, "bin", "partner-cli.js");

const HEAVY = [
  "undici",
  "zod",
  "conf",
  "ajv",
  "@inquirer/prompts",
  "@inquirer/core",
  "csv-parse",
  "csv-stringify",
  "proper-lockfile",
  "find-my-way",
  "cli-table3",
  "cli-progress",
  "decimal.js",
  "temporal-polyfill",
  "jq-wasm",
  "exceljs",
  "libsql",
  "pg",
];

/** The npm packages whose code a built file holds (from its source map) or imports by name. */
function packagesIn(file: string): Set<string> {
  const out = new Set<string>();
  const add = (p: string) => {
    const m = /(?:^|[\\/])node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/.exec(p);
    if (m) out.add(m[1]!.replace("\\", "/"));
  };
  const map = `${file}.map`;
  if (existsSync(map)) for (const s of JSON.parse(readFileSync(map, "utf8")).sources as string[]) add(s);
  for (const m of readFileSync(file, "utf8").matchAll(
    /^import\s+(?:[^;]*?\sfrom\s+)?["']([^"'.][^"']*)["']/gm,
  )) {
    const spec = m[1]!;
    if (!spec.startsWith("node:"))
      out.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!);
  }
  return out;
}

/** Files reached from `entry` through static imports only (dynamic import() is what keeps things lazy). */
function staticFiles(entry: string): string[] {
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(/^import\s+(?:[^;]*?\sfrom\s+)?["'](\.[^"']+)["']/gm))
      walk(resolve(dirname(file), m[1]!));
  };
  walk(entry);
  return [...seen];
}

const union = (files: string[]) => new Set(files.flatMap((f) => [...packagesIn(f)]));

// Records every module file the built CLI actually loads (static and dynamic imports alike).
const tmp = mkdtempSync(join(tmpdir(), "partner-cli-startup-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const HOOKS = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (r.url.startsWith("file:")) appendFileSync(process.env.STARTUP_TRACE, r.url + "\\n");
  return r;
}`)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module"; register(${JSON.stringify(HOOKS)});`,
)}`;

function loadedBy(args: string[]): { files: string[]; stdout: string } {
  const trace = join(tmp, `trace-${args.join("_")}.txt`);
  const stdout = execFileSync(process.execPath, ["--import", REGISTER, BIN, ...args], {
    env: { ...process.env, STARTUP_TRACE: trace, PARTNER_CLI_CONFIG_DIR: join(tmp, "config") },
    encoding: "utf8",
  });
  const files = existsSync(trace)
    ? [...new Set(readFileSync(trace, "utf8").split("\n").filter(Boolean))].map((u) => fileURLToPath(u))
    : [];
  return { files, stdout };
}

describe.skipIf(!existsSync(MAIN))("start-up imports of the built CLI", () => {
  it("the check sees bundled packages: commander is on the start-up path, undici is in dist/", () => {
    expect(union(staticFiles(MAIN)).has("commander")).toBe(true);
    const { files } = loadedBy(["--help"]);
    expect(union(files).has("commander")).toBe(true);
    // The HTTP client is bundled somewhere in dist/ (so its absence below means something).
    const all = execFileSync("find", [join(ROOT, "dist"), "-name", "*.js"], { encoding: "utf8" })
      .split("\n")
      .filter(Boolean);
    expect(union(all).has("undici")).toBe(true);
  });

  it("dist/main.js statically reaches no HTTP client, zod, prompts, CSV, config store, sandbox or table code", () => {
    const pkgs = union(staticFiles(MAIN));
    for (const heavy of HEAVY) expect(pkgs.has(heavy), `${heavy} is imported at start-up`).toBe(false);
  });

  it("--version loads no package at all, and answers without the command tree", () => {
    const { files, stdout } = loadedBy(["--version"]);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect([...union(files)]).toEqual([]);
    expect(files.some((f) => f.endsWith(`${join("dist", "main.js")}`))).toBe(false);
  });

  it.each([[["--help"]], [["roster", "--help"]], [["help", "campaigns"]]])(
    "%j loads commander and no heavy package",
    (args) => {
      const { files } = loadedBy(args);
      const pkgs = union(files);
      for (const heavy of HEAVY)
        expect(pkgs.has(heavy), `${heavy} is loaded for ${args.join(" ")}`).toBe(false);
    },
  );

  it("the trace sees lazily imported chunks (a command run loads its own chunk)", () => {
    const { files } = loadedBy(["completion", "bash"]);
    expect(files.length).toBeGreaterThan(staticFiles(MAIN).length);
  });
});
