// The start-up path of the built program must not reach the HTTP stack or other heavy packages: each
// costs about one bare-node start (docs/benchmarks.md). The build bundles dependencies into dist/
// chunks, so "a package is loaded" means "a loaded file holds that package's code": read from each
// loaded file's source map (its `sources` name every node_modules file bundled into it). Needs a
// build, which test/global-setup.ts makes once per run, like the e2e tests.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type RunResult, useSandbox } from "../helpers/harness.js";

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

const s = useSandbox();

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
// The trace also records each Intl.Segmenter made: string-width makes one as it loads (the build
// defers that to its first call), so a segmenter in the trace means string-width was evaluated.
const REGISTER = `data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module"; import { appendFileSync } from "node:fs";
register(${JSON.stringify(HOOKS)});
Intl.Segmenter = new Proxy(Intl.Segmenter, { construct(target, args, nt) {
  appendFileSync(process.env.STARTUP_TRACE, "segmenter:" + new Error().stack.split("\\n").slice(2, 4).join(" ") + "\\n");
  return Reflect.construct(target, args, nt);
} });`,
)}`;

interface Trace {
  /** The module files loaded. */
  files: string[];
  /** Where each Intl.Segmenter was made. */
  segmenters: string[];
}

function readTrace(trace: string): Trace {
  const lines = existsSync(trace) ? readFileSync(trace, "utf8").split("\n").filter(Boolean) : [];
  return {
    files: [...new Set(lines.filter((l) => l.startsWith("file:")))].map((u) => fileURLToPath(u)),
    segmenters: lines.filter((l) => l.startsWith("segmenter:")),
  };
}

let traces = 0;

function loadedBy(args: string[]): Trace & { stdout: string } {
  const trace = join(tmp, `trace-${++traces}.txt`);
  const stdout = execFileSync(process.execPath, ["--import", REGISTER, BIN, ...args], {
    env: { ...process.env, STARTUP_TRACE: trace, PARTNER_CLI_CONFIG_DIR: join(tmp, "config") },
    encoding: "utf8",
  });
  return { ...readTrace(trace), stdout };
}

/** The built CLI against the file's sandbox (spawned without blocking it), traced. */
async function tracedCli(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
  key?: null,
): Promise<Trace & RunResult> {
  const trace = join(tmp, `trace-${++traces}.txt`);
  const r = await s.cli(argv, {
    env: { NODE_OPTIONS: `--import=${REGISTER}`, STARTUP_TRACE: trace, ...env },
    ...(key === null ? { key: null } : {}),
  });
  return Object.assign(r, readTrace(trace));
}

describe.skipIf(!existsSync(MAIN))("start-up imports of the built CLI", () => {
  it("the check sees bundled packages: commander is on the start-up path, undici is in dist/", () => {
    expect(union(staticFiles(MAIN)).has("commander")).toBe(true);
    const { files } = loadedBy(["help", "campaigns"]);
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

  it.each([
    [["--help"]],
    [["-h"]],
    [["help"]],
    [["roster", "--help"]],
    [["help", "campaigns"]],
    [["--quiet", "--help"]],
  ])("%j loads commander and no heavy package", (args) => {
    const { files } = loadedBy(args);
    const pkgs = union(files);
    for (const heavy of HEAVY)
      expect(pkgs.has(heavy), `${heavy} is loaded for ${args.join(" ")}`).toBe(false);
  });

  it("the trace sees lazily imported chunks (a command run loads its own chunk)", () => {
    const { files } = loadedBy(["completion", "bash"]);
    expect(files.length).toBeGreaterThan(staticFiles(MAIN).length);
  });
});

describe.skipIf(!existsSync(MAIN))("what `me` loads (the built CLI against a sandbox)", () => {
  // `me` needs the HTTP client and the response schemas (zod), nothing else of weight: no prompts,
  // CSV, sandbox, keychain or lock code, and string-width stays unevaluated (its output is TSV here).
  const NOT_FOR_ME = HEAVY.filter((p) => p !== "undici" && p !== "zod");

  function expectLean(t: Trace, what: string): void {
    const pkgs = union(t.files);
    expect(pkgs.has("undici"), `the trace sees the HTTP client (${what})`).toBe(true);
    for (const heavy of [...NOT_FOR_ME, "@napi-rs/keyring"])
      expect(pkgs.has(heavy), `${heavy} is loaded for ${what}`).toBe(false);
    const own = sourcesIn(t.files);
    expect(own.has("src/io/table.ts"), `the trace sees the table code (${what})`).toBe(true);
    for (const file of ["src/io/file-lock.ts", "src/config/keychain.ts"])
      expect(own.has(file), `${file} is loaded for ${what}`).toBe(false);
    expect(t.segmenters, `string-width was evaluated for ${what}`).toEqual([]);
  }

  it("with the key in PARTNER_API_KEY", async () => {
    const t = await tracedCli(["me"]);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^organization\t/);
    expectLean(t, "me (PARTNER_API_KEY)");
  });

  it("through a stored profile (the config store is read; its lock is for writes only)", async () => {
    const dir = join(tmp, "profile-config");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const profile = { baseUrl: s.url, apiKey: s.writeKey, savedAt: "2026-01-01T00:00:00.000Z" };
    const config = { profiles: { p: profile }, cursors: {}, jobs: {}, currentProfile: "p" };
    writeFileSync(join(dir, "config.json"), JSON.stringify(config), { mode: 0o600 });
    const t = await tracedCli(["me"], { PARTNER_CLI_CONFIG_DIR: dir }, null);
    expect(t.exitCode, t.stderr).toBe(0);
    expect(t.stderr).toContain('Using profile "p"');
    expect(sourcesIn(t.files).has("src/config/store.ts")).toBe(true);
    expectLean(t, "me (stored profile)");
  });

  it("a table of wide text evaluates string-width when it is first needed, and measures as the sources do", async () => {
    const name = "\u6771\u4eac \ud83d\ude00 Zo\u00eb";
    const put = await s.http("PUT", "/creators/startup-wide", { body: { name, email: "wide@example.com" } });
    expect(put.status, JSON.stringify(put.body)).toBeLessThan(300);
    const argv = ["roster", "list", "--format", "table"];
    const built = await tracedCli(argv);
    expect(built.exitCode, built.stderr).toBe(0);
    expect(built.segmenters.length).toBe(1);
    expect(built.stdout).toContain("\u6771\u4eac");
    const inProcess = await s.run(argv);
    // (the spawned run's stdout comes without its final newline)
    expect(`${built.stdout}\n`).toBe(inProcess.stdout);
  });
});

/** The files of our own sources (src/...) a built file holds, from its source map. */
function sourcesIn(files: string[]): Set<string> {
  const out = new Set<string>();
  for (const file of files) {
    if (!existsSync(`${file}.map`)) continue;
    for (const src of JSON.parse(readFileSync(`${file}.map`, "utf8")).sources as string[]) {
      const m = /(?:^|[\\/])(src[\\/].*)$/.exec(src);
      if (m && !src.includes("node_modules")) out.add(m[1]!.replaceAll("\\", "/"));
    }
  }
  return out;
}
