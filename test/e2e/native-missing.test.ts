// A native package that is not installed (npm has no build of it for the platform: libsql on
// Windows on ARM) is a clear error, exit 4, naming the package, the platform and what still works;
// the keychain binding missing falls back to the config file, as where no keychain answers. Each
// case spawns the built CLI from a copy of bin/ and dist/ whose node_modules lacks that package.
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PLATFORM = `${process.platform}-${process.arch}`;
const s = useSandbox();

/** bin/, dist/ and package.json of this checkout, with a node_modules of every entry but `missing`. */
function installWithout(...missing: string[]): string {
  const app = tempDir("pcli-nonative-");
  for (const d of ["bin", "dist"]) cpSync(join(ROOT, d), join(app, d), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(app, "package.json"));
  const nm = join(app, "node_modules");
  mkdirSync(nm);
  const scopes = new Set(missing.filter((m) => m.startsWith("@")).map((m) => m.split("/")[0]!));
  for (const e of readdirSync(join(ROOT, "node_modules"))) {
    if (missing.includes(e)) continue;
    if (!scopes.has(e)) {
      symlinkSync(join(ROOT, "node_modules", e), join(nm, e));
      continue;
    }
    // A scope with one package left out: the others of the scope stay.
    mkdirSync(join(nm, e));
    for (const p of readdirSync(join(ROOT, "node_modules", e)))
      if (!missing.some((m) => m === `${e}/${p}` || m.startsWith(`${e}/${p}`)))
        symlinkSync(join(ROOT, "node_modules", e, p), join(nm, e, p));
  }
  return join(app, "bin", "partner-cli.js");
}

async function run(bin: string, argv: string[], env: NodeJS.ProcessEnv, input?: string) {
  const r = await execa("node", [bin, ...argv], {
    env: { NO_COLOR: "1", PARTNER_RETRY_BASE_MS: "20", ...env },
    extendEnv: false,
    reject: false,
    ...(input === undefined ? { stdin: "ignore" as const } : { input }),
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** Every file under `dir` with its bytes. */
function bytesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out[join(e.parentPath, e.name)] = readFileSync(join(e.parentPath, e.name), "base64");
  return out;
}

const PATH = { PATH: process.env.PATH ?? "" };

describe("libsql not installed", () => {
  const bin = installWithout("libsql", "@libsql");

  it("sync --to sqlite: exits 4 naming libsql, the platform and sync --to postgres; no file is left", async () => {
    const dir = tempDir();
    const db = join(dir, "copy.sqlite");
    const env = { ...PATH, ...s.env({}, { configDir: tempDir() }) };
    const r = await run(bin, ["sync", "--to", `sqlite:${db}`], env);
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(`The native module libsql does not load on this machine (${PLATFORM}, Node `);
    expect(r.stderr).toContain("It is needed for copying into SQLite (sync --to sqlite:FILE)");
    expect(r.stderr).toContain("Without it, these still work: sync --to postgres://...");
    expect(r.stderr).not.toMatch(/This is a bug|machine's failure/);
    expect(readdirSync(dir)).toEqual([]);
    const json = await run(bin, ["sync", "--to", `sqlite:${db}`, "--json"], env);
    expect(json.exitCode).toBe(4);
    expect(JSON.parse(json.stderr).error.code).toBe("config_error");
  });

  it("the embedded sandbox exits 4 and says what works without it; a real service still works", async () => {
    const cfg = tempDir();
    const r = await run(bin, ["me", "--sandbox"], { ...PATH, PARTNER_CLI_CONFIG_DIR: cfg });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain("The native module libsql does not load");
    expect(r.stderr).toContain("It is needed for the sandbox");
    expect(r.stderr).toContain("every command against your service");
    const me = await run(bin, ["me", "--json"], { ...PATH, ...s.env({}, { configDir: cfg }) });
    expect(me.exitCode, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout).organization.name).toBe("Northwind Creators");
  });
});

describe("@napi-rs/keyring not installed", () => {
  const bin = installWithout("@napi-rs/keyring");

  it("login keeps the key in the config file, with one notice saying why", async () => {
    const cfg = tempDir();
    const r = await run(
      bin,
      ["login", "--base-url", s.url, "--api-key-stdin"],
      { ...PATH, PARTNER_CLI_CONFIG_DIR: cfg },
      `${s.writeKey}\n`,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const notices = r.stderr.split("\n").filter((l) => l.includes("keychain"));
    expect(notices).toEqual([
      `No OS keychain answered (the keychain binding @napi-rs/keyring does not load here (${PLATFORM})), so the key is in ${join(cfg, "config.json")} instead, readable only by you.`,
    ]);
    const stored = JSON.parse(readFileSync(join(cfg, "config.json"), "utf8"));
    expect(stored.profiles.default.apiKey).toBe(s.writeKey);
    expect((await run(bin, ["me"], { ...PATH, PARTNER_CLI_CONFIG_DIR: cfg })).exitCode).toBe(0);
  });

  it("a key already in the keychain: exit 4 naming the binding, PARTNER_API_KEY and --insecure-storage; the config is unchanged", async () => {
    const cfg = tempDir();
    const profile = {
      baseUrl: s.url,
      keyStorage: "keychain",
      keyMask: "****abcd",
      savedAt: "2026-01-01T00:00:00Z",
    };
    writeFileSync(
      join(cfg, "config.json"),
      JSON.stringify({ currentProfile: "p", profiles: { p: profile } }),
      {
        mode: 0o600,
      },
    );
    const before = bytesOf(cfg);
    const r = await run(bin, ["me"], { ...PATH, PARTNER_CLI_CONFIG_DIR: cfg });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `The key of profile "p" is in the OS keychain, but the native module @napi-rs/keyring does not load on this machine (${PLATFORM}`,
    );
    expect(r.stderr).toContain("set PARTNER_API_KEY");
    expect(r.stderr).toContain('"partner-cli login --profile p --insecure-storage"');
    expect(bytesOf(cfg)).toEqual(before);
  });
});

describe("fs-native-extensions not installed", () => {
  const bin = installWithout("fs-native-extensions");

  it("an export (which locks its file) exits 4 naming the package; nothing is written", async () => {
    const dir = tempDir();
    const cfg = tempDir();
    const out = join(dir, "r.csv");
    const r = await run(bin, ["redemptions", "export", "--out", out], {
      ...PATH,
      ...s.env({}, { configDir: cfg }),
    });
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toContain(
      `The native module fs-native-extensions does not load on this machine (${PLATFORM}`,
    );
    expect(r.stderr).toContain("It is needed for file locks");
    expect(readdirSync(dir)).toEqual([]);
    // A command that keeps nothing here still works.
    const me = await run(bin, ["me"], { ...PATH, ...s.env({}, { configDir: cfg }) });
    expect(me.exitCode, me.stderr).toBe(0);
  });
});
