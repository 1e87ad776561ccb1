// The machine's own failures are named, never "a bug" (exit 10, or 7 / 4 for the database): every
// class is walked through the built CLI, with real failures where this machine allows them (a tiny
// tmpfs fills up, a read-only remount, a run as another uid, a directory where a file goes, a broken
// native binary, PostgreSQL backends terminated mid-sync, TLS asked of a server without it) and an
// injected errno (test/fixtures/fs-fault.mjs) where it does not (EIO, EDQUOT, EMFILE, ENFILE, EPERM).
// Each checks the exit code, the message (path, code, next step) and the bytes of the files.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { feedIds } from "../export/arrange.js";
import { BIN, cli } from "../helpers/cli.js";
import { simulate, useFeedCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import type { RunResult } from "../helpers/result.js";
import { tempDir } from "../helpers/sandbox.js";
import { PG_URL, pgAvailable } from "../sync/destinations.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FAULT = fileURLToPath(new URL("../fixtures/fs-fault.mjs", import.meta.url));

/** Why tmpfs mounts cannot be made here (not root, no CAP_SYS_ADMIN), or undefined when they can. */
function mountBlocker(): string | undefined {
  const d = tempDir("pcli-mnt-");
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", d], { stdio: "pipe" });
    execFileSync("umount", [d]);
    return undefined;
  } catch (err) {
    return `mounting a tmpfs failed (${String((err as Error).message).split("\n")[0]})`;
  }
}
const blocker = mountBlocker();
if (blocker && process.env.CI === "true")
  throw new Error(`CI=true but ${blocker}: the machine-failure tests must run on CI (as root).`);
if (blocker) console.warn(`machine-failure tests: the real-disk cases are SKIPPED: ${blocker}.`);

const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts.reverse()) execFileSync("umount", ["-l", m]);
});

/** A tmpfs of `size`, remountable (bigger, read-only) by the test. */
function tmpfs(size: string): { dir: string; remount: (opts: string) => void } {
  const dir = tempDir("pcli-disk-");
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  mounts.push(dir);
  return { dir, remount: (opts) => execFileSync("mount", ["-o", `remount,${opts}`, dir]) };
}

/** Fills a file system to its last byte (a filler file), so the next write fails with ENOSPC. */
function fill(dir: string): void {
  try {
    execFileSync("dd", ["if=/dev/zero", `of=${join(dir, ".filler")}`, "bs=4k"], { stdio: "pipe" });
  } catch {
    // dd ends with "No space left on device": the file system is full
  }
}

/** Every file under `dir` (hidden ones too) with a hash of its bytes. */
function bytesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

const covered = new Set<string>();

/** Exit 10 with the code, the path and the next step; never "Unexpected error" or "a bug". */
function expectMachine(r: RunResult, code: string, path: string, next: RegExp): void {
  expect(r.exitCode, r.stderr).toBe(10);
  expect(r.stderr).toContain(`(${code}`);
  expect(r.stderr).toContain(path);
  expect(r.stderr).toMatch(next);
  expect(r.stderr).toContain("not a bug in partner-cli");
  expect(r.stderr).not.toMatch(/Unexpected error|This is a bug/);
  covered.add(code);
}

const s = useSandbox();
const campaign = useFeedCampaign(s, { claims: 2500, redemptions: 2500, seed: 5 });

/** CSV ids of an export file (header skipped), each must appear once. */
const csvIds = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split(",")[0]!);

describe.skipIf(blocker !== undefined)("a full disk (a small tmpfs): exit 10, the data holds", () => {
  it("redemptions export --out: ENOSPC; after space is freed the rerun completes, each id once", async () => {
    const disk = tmpfs("128k");
    const out = join(disk.dir, "redemptions.csv");
    const env = s.env();
    const r = await cli(["redemptions", "export", "--out", out, "--page-size", "100"], { env });
    expectMachine(r, "ENOSPC", out, /Free space on the file system of .*df -h/);
    expect(r.stderr).toContain("every row up to its saved cursor");
    // What is on disk is what the cursor covers: nothing half-written, no duplicate.
    const partial = csvIds(out);
    expect(new Set(partial).size).toBe(partial.length);
    disk.remount("size=16m");
    const again = await cli(["redemptions", "export", "--out", out, "--page-size", "100"], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    const ids = csvIds(out);
    expect(ids.slice(0, partial.length)).toEqual(partial);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual((await feedIds(s.sb)).sort());
  });

  it("events sync --out: ENOSPC; the rerun continues, each event once", async () => {
    const disk = tmpfs("64k");
    const out = join(disk.dir, "events.ndjson");
    const env = s.env();
    const r = await cli(["events", "sync", "--out", out, "--page-size", "50"], { env });
    expectMachine(r, "ENOSPC", out, /Free space/);
    const before = readFileSync(out, "utf8");
    expect(before === "" || before.endsWith("\n")).toBe(true);
    disk.remount("size=32m");
    const again = await cli(["events", "sync", "--out", out], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    const after = readFileSync(out, "utf8");
    expect(after.startsWith(before)).toBe(true);
    const ids = after
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { id: string }).id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("sync --to sqlite:FILE: SQLITE_FULL as ENOSPC; the rerun completes the copy", async () => {
    const disk = tmpfs("256k");
    const db = join(disk.dir, "copy.sqlite");
    const env = s.env();
    const r = await cli(["sync", "--to", `sqlite:${db}`, "--only", "redemptions", "--page-size", "200"], {
      env,
    });
    expectMachine(r, "ENOSPC", db, /Free space/);
    expect(r.stderr).toContain("reported as SQLITE_FULL");
    expect(r.stderr).toContain("with its checkpoint");
    disk.remount("size=64m");
    const again = await cli(["sync", "--to", `sqlite:${db}`, "--only", "redemptions", "--json"], { env });
    expect(again.exitCode, again.stderr).toBe(0);
    const n = execFileSync(
      "node",
      [
        "-e",
        `const D=require("libsql");console.log(new D(process.argv[1]).prepare("select count(*) from redemptions").raw(true).get()[0])`,
        db,
      ],
      { cwd: ROOT },
    );
    expect(Number(String(n).trim())).toBe((await feedIds(s.sb)).length);
  });

  it("the config dir full: ENOSPC naming the file in it, everything there left as it was", async () => {
    const disk = tmpfs("64k");
    const cfg = join(disk.dir, "cfg");
    const out = join(tempDir(), "r.csv");
    const env = s.env({ PARTNER_CLI_CONFIG_DIR: cfg });
    expect((await cli(["redemptions", "export", "--out", out], { env })).exitCode).toBe(0);
    await simulate(s.sb, { campaign: campaign.id, claims: 50, redemptions: 50, seed: 41 });
    fill(disk.dir);
    const before = bytesOf(cfg);
    const r = await cli(["redemptions", "export", "--out", out], { env });
    // The first write there fails: a run lock's record or config.json, each named with its path.
    expectMachine(r, "ENOSPC", cfg, /Free space on the file system of .*cfg/);
    expect(bytesOf(cfg)).toEqual(before);
  });
});

describe.skipIf(blocker !== undefined)("a report's --out on a full disk: exit 10, no file", () => {
  it("reports creators --out FILE.csv: ENOSPC named with the file; nothing left there", async () => {
    const disk = tmpfs("64k");
    fill(disk.dir);
    const before = bytesOf(disk.dir);
    const out = join(disk.dir, "payouts.csv");
    const r = await cli(["reports", "creators", "--preset", "30d", "--out", out], { env: s.env() });
    expectMachine(r, "ENOSPC", out, /Free space on the file system of .*df -h/);
    expect(r.stderr).toContain(`Nothing was written to ${out}`);
    expect(bytesOf(disk.dir)).toEqual(before);
  });
});

describe.skipIf(blocker !== undefined)("a read-only file system: exit 10, nothing changed", () => {
  it("export, events sync, sync into SQLite and the config dir on a read-only remount", async () => {
    const disk = tmpfs("32m");
    const cfg = join(disk.dir, "cfg");
    const out = join(disk.dir, "r.csv");
    const events = join(disk.dir, "events.ndjson");
    const db = join(disk.dir, "copy.sqlite");
    const env = s.env({ PARTNER_CLI_CONFIG_DIR: cfg });
    // The outputs' cursors live in a writable config dir; the config dir on the disk gets its own run.
    const outside = s.env({ PARTNER_CLI_CONFIG_DIR: tempDir() });
    expect((await cli(["offers", "list"], { env })).exitCode).toBe(0);
    for (const argv of [
      ["redemptions", "export", "--out", out],
      ["events", "sync", "--out", events],
      ["sync", "--to", `sqlite:${db}`, "--only", "offers"],
    ])
      expect((await cli(argv, { env: outside })).exitCode).toBe(0);
    await simulate(s.sb, { campaign: campaign.id, claims: 50, redemptions: 50, seed: 42 });
    disk.remount("ro");
    const before = bytesOf(disk.dir);
    const ro = join(disk.dir, "new-dir", "cfg");
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [["redemptions", "export", "--out", out], outside, out],
      [["events", "sync", "--out", events], outside, events],
      [["sync", "--to", `sqlite:${db}`], outside, db],
      [["sync", "--to", `sqlite:${join(disk.dir, "new.sqlite")}`], outside, join(disk.dir, "new.sqlite")],
      [["redemptions", "export", "--out", join(tempDir(), "r.csv")], env, cfg],
      [
        ["redemptions", "export", "--out", join(tempDir(), "r.csv")],
        s.env({ PARTNER_CLI_CONFIG_DIR: ro }),
        ro,
      ],
    ];
    for (const [argv, e, path] of cases) {
      const r = await cli(argv, { env: e });
      expectMachine(r, "EROFS", path, /read-only file system .*remounted read-write/);
    }
    expect(bytesOf(disk.dir)).toEqual(before);
  });
});

describe.skipIf(blocker !== undefined)("permissions and paths: exit 10", () => {
  it("EACCES: a run as uid 65534 into a directory it may not write; nothing changed", async () => {
    const dir = tempDir();
    const out = join(dir, "r.csv");
    writeFileSync(out, "id\n");
    const cfg = tempDir();
    execFileSync("chown", ["65534:65534", cfg]);
    const before = bytesOf(dir);
    const r = await execa(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "node",
        BIN,
        "redemptions",
        "export",
        "--out",
        join(dir, "new.csv"),
      ],
      { env: { ...s.env({ PARTNER_CLI_CONFIG_DIR: cfg }), NO_COLOR: "1" }, reject: false, stdin: "ignore" },
    );
    expectMachine(
      { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) } as RunResult,
      "EACCES",
      join(dir, "new.csv"),
      /uid 65534\) may not write/,
    );
    expect(bytesOf(dir)).toEqual(before);
  });

  it("EISDIR (events sync --out DIR) and ENOTDIR (export --out FILE/x); export --out DIR stays exit 2", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "store"));
    writeFileSync(join(dir, "plain"), "keep\n");
    const before = bytesOf(dir);
    const env = s.env();
    expectMachine(
      await cli(["events", "sync", "--out", join(dir, "store")], { env }),
      "EISDIR",
      join(dir, "store"),
      /is a directory: name a file/,
    );
    const notDir = join(dir, "plain", "r.csv");
    expectMachine(
      await cli(["redemptions", "export", "--out", notDir], { env }),
      "ENOTDIR",
      notDir,
      /is a file, not a directory/,
    );
    const usage = await cli(["redemptions", "export", "--out", join(dir, "store")], { env });
    expect(usage.exitCode).toBe(2);
    expect(bytesOf(dir)).toEqual(before);
  });
});

describe("errors this machine cannot produce for real: injected errno (fs-fault.mjs)", () => {
  const inject = (spec: string, extra: NodeJS.ProcessEnv = {}) =>
    s.env({ ...extra, NODE_OPTIONS: `--import ${FAULT}`, PARTNER_TEST_FS_FAULT: spec });
  it.each([
    ["EIO", "write", /check the system log \(dmesg\)/],
    ["EDQUOT", "write", /quota/],
    ["EMFILE", "open", /ulimit -n/],
    ["ENFILE", "open", /fs.file-max/],
    ["EPERM", "open", /may not write/],
  ])("%s on the export's %s: exit 10, the file as it was", async (code, op, next) => {
    const dir = tempDir();
    const out = join(dir, "r.csv");
    const cfg = tempDir();
    expect(
      (await cli(["redemptions", "export", "--out", out], { env: s.env({ PARTNER_CLI_CONFIG_DIR: cfg }) }))
        .exitCode,
    ).toBe(0);
    await simulate(s.sb, { campaign: campaign.id, claims: 20, redemptions: 20 });
    // The checkpoint may gain the export's write intent (recorded before each append); the cursor stays.
    const cursorOf = () =>
      readdirSync(join(cfg, "cursors")).flatMap((f) =>
        Object.values(
          JSON.parse(readFileSync(join(cfg, "cursors", f), "utf8")).cursors as Record<
            string,
            Record<string, unknown>
          >,
        ).map((c) => [c.cursor, c.rows, c.committedBytes]),
      );
    const before = { out: bytesOf(dir), cursor: cursorOf() };
    const r = await cli(["redemptions", "export", "--out", out], {
      env: inject(`${code}:${op}:r.csv`, { PARTNER_CLI_CONFIG_DIR: cfg }),
    });
    expectMachine(r, code, out, next);
    expect({ out: bytesOf(dir), cursor: cursorOf() }).toEqual(before);
  });
});

// Not the machine's failure after all: src/io/native.ts makes it a configuration error (exit 4,
// issue 23) naming the package, the platform and what still works (test/e2e/native-missing.test.ts
// covers packages that are not installed).
describe("a native module that does not load: exit 4", () => {
  /** A copy of the install whose native binaries (libsql's, the keychain's) are not shared objects. */
  function brokenInstall(): string {
    const app = tempDir("pcli-app-");
    for (const d of ["bin", "dist"]) cpSync(join(ROOT, d), join(app, d), { recursive: true });
    cpSync(join(ROOT, "package.json"), join(app, "package.json"));
    const nm = join(app, "node_modules");
    const own = ["libsql", "@libsql", "@napi-rs", ".bin"];
    mkdirSync(nm);
    for (const e of readdirSync(join(ROOT, "node_modules")))
      if (!own.includes(e)) symlinkSync(join(ROOT, "node_modules", e), join(nm, e));
    for (const e of own.slice(0, 3))
      cpSync(join(ROOT, "node_modules", e), join(nm, e), { recursive: true, dereference: true });
    for (const bin of [join(nm, "@libsql", "linux-x64-gnu"), join(nm, "@napi-rs", "keyring-linux-x64-gnu")])
      for (const f of readdirSync(bin).filter((n) => n.endsWith(".node")))
        writeFileSync(join(bin, f), "not a shared object\n");
    return join(app, "bin", "partner-cli.js");
  }
  const run = async (bin: string, argv: string[], env: NodeJS.ProcessEnv): Promise<RunResult> => {
    const r = await execa("node", [bin, ...argv], {
      env: { ...env, NO_COLOR: "1" },
      reject: false,
      stdin: "ignore",
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) } as RunResult;
  };
  const expectNative = (r: RunResult) => {
    expect(r.exitCode, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/the native module (libsql|@napi-rs\/keyring) does not load on this machine/i);
    expect(r.stderr).toMatch(/reinstall partner-cli/);
    expect(r.stderr).not.toMatch(/Unexpected error|This is a bug/);
  };

  it("libsql's and the keychain's binaries broken (ERR_DLOPEN_FAILED): named, with the reinstall; nothing written", async () => {
    const bin = brokenInstall();
    const db = join(tempDir(), "copy.sqlite");
    const sync = await run(bin, ["sync", "--to", `sqlite:${db}`], s.env());
    expectNative(sync);
    // libsql's loader keeps Node's code; napi-rs's (the keychain's) reports no code at all.
    expect(sync.stderr).toContain("ERR_DLOPEN_FAILED");
    expect(existsSync(db)).toBe(false);
    // A profile whose key is in the keychain: reading it needs the binding.
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
    );
    const before = bytesOf(cfg);
    const env = s.env({ PARTNER_CLI_CONFIG_DIR: cfg });
    delete env.PARTNER_API_KEY;
    delete env.PARTNER_BASE_URL;
    expectNative(await run(bin, ["me"], env));
    expect(bytesOf(cfg)).toEqual(before);
    covered.add("NATIVE");
  });
});

describe.skipIf(!pgAvailable())(
  "PostgreSQL: a lost connection is retried (7 when it stays down), TLS refused is 4",
  () => {
    const schema = () => `mf_${Math.random().toString(36).slice(2, 10)}`;
    const to = (sch: string) => `${PG_URL}${PG_URL!.includes("?") ? "&" : "?"}schema=${sch}`;
    /** Terminates every backend of a `sync` run (same role) whenever one holds rows, `times` times at most. */
    async function terminator(times: number): Promise<{ stop: () => Promise<number> }> {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      let done = 0;
      let stopped = false;
      const loop = (async () => {
        while (!stopped && done < times) {
          const r = await c.query(
            "SELECT pg_terminate_backend(pid) AS t FROM pg_stat_activity WHERE application_name = 'partner-cli sync' AND state <> 'idle'",
          );
          done += r.rows.filter((x) => x.t).length;
          await new Promise((res) => setImmediate(res));
        }
      })();
      return {
        stop: async () => {
          stopped = true;
          await loop;
          await c.end();
          return done;
        },
      };
    }
    const count = async (sch: string) => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      try {
        return Number((await c.query(`SELECT COUNT(*) AS n FROM ${sch}.redemptions`)).rows[0].n);
      } finally {
        await c.query(`DROP SCHEMA IF EXISTS ${sch} CASCADE`);
        await c.end();
      }
    };

    it("a backend terminated mid-sync (57P01): reconnects, continues from the checkpoint, the copy is exact", async () => {
      const sch = schema();
      const t = await terminator(1);
      const r = await cli(["sync", "--to", to(sch), "--only", "redemptions", "--page-size", "50"], {
        env: s.env(),
      });
      const killed = await t.stop();
      expect(r.exitCode, r.stderr).toBe(0);
      expect(killed).toBe(1);
      expect(r.stderr).toMatch(/Lost the connection to PostgreSQL at .*reconnecting/);
      expect(r.stderr).not.toContain("pw");
      expect(await count(sch)).toBe((await feedIds(s.sb)).length);
      covered.add("PG_LOST");
    });

    it("a connection that keeps being lost: exit 7 after the retries, naming the server and what is kept", async () => {
      const sch = schema();
      const t = await terminator(1000);
      const r = await cli(["sync", "--to", to(sch), "--only", "redemptions", "--page-size", "50"], {
        env: s.env({ PARTNER_RETRY_DEADLINE_MS: "4000", PARTNER_RETRY_BASE_MS: "20" }),
      });
      await t.stop();
      expect(r.exitCode, r.stderr).toBe(7);
      expect(r.stderr).toMatch(/could not get it back after \d+ attempts/);
      expect(r.stderr).toContain("Every page committed so far is in");
      expect(r.stderr).not.toMatch(/Unexpected error|This is a bug/);
      await count(sch).catch(() => 0);
      covered.add("PG_DOWN");
    });

    it("sslmode=require against a server without TLS: exit 4, nothing written", async () => {
      const r = await cli(["sync", "--to", `${to(schema())}&sslmode=require`], { env: s.env() });
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stderr).toContain("does not accept TLS");
      expect(r.stderr).toMatch(/ssl = on|sslmode/);
      covered.add("PG_TLS");
    });
  },
);

describe("every class", () => {
  it("was walked (on a machine that can mount and has PostgreSQL)", () => {
    const all = [
      "ENOSPC",
      "EROFS",
      "EACCES",
      "EISDIR",
      "ENOTDIR",
      "EIO",
      "EDQUOT",
      "EMFILE",
      "ENFILE",
      "EPERM",
      "NATIVE",
    ];
    const expected = [
      ...all.filter(
        (c) => blocker === undefined || !["ENOSPC", "EROFS", "EACCES", "EISDIR", "ENOTDIR"].includes(c),
      ),
      ...(PG_URL ? ["PG_LOST", "PG_DOWN", "PG_TLS"] : []),
    ];
    expect([...covered].sort()).toEqual(expected.sort());
  });
});
