// The SQLite copy is private: the database, its -wal/-shm/-journal files and the run lock beside it
// are 0600 whatever the umask (the built CLI spawned under `umask 000`), and an existing database
// keeps the mode someone gave it.
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { useFeedCampaign } from "../helpers/fixtures.js";
import { BIN } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";
import { runIn } from "../helpers/run.js";
import { tempDir } from "../helpers/sandbox.js";
import { expectEqualsTruth } from "./truth.js";
import { sqliteDest } from "./destinations.js";
import { until } from "../helpers/wait.js";

describe("sync: the SQLite copy is private", () => {
  const s = useSandbox();
  useFeedCampaign(s, { claims: 700, redemptions: 600, exclusions: 5, seed: 8 });
  const env = () => ({
    PARTNER_CLI_CONFIG_DIR: tempDir(),
    PARTNER_BASE_URL: s.url,
    PARTNER_API_KEY: s.writeKey,
    NO_COLOR: "1",
  });

  /** Runs the built CLI under umask 000, recording the mode of every file in `dir` while it runs. */
  const syncUnderUmask000 = async (dir: string, to: string) => {
    const seen = new Map<string, Set<number>>();
    const look = () => {
      for (const name of readdirSync(dir)) {
        let mode: number;
        try {
          mode = statSync(join(dir, name)).mode & 0o777;
        } catch {
          continue; // gone between readdir and stat
        }
        if (!seen.has(name)) seen.set(name, new Set());
        seen.get(name)!.add(mode);
      }
    };
    const child = execa(
      "sh",
      ["-c", 'umask 000 && exec node "$@"', "sh", BIN, "sync", "--to", to, "--page-size", "100"],
      { env: env(), reject: false, stdin: "ignore" },
    );
    // Looks every 5 ms while the run lasts, to see the files SQLite keeps only while it writes.
    const ended = () => {
      look();
      return child.exitCode !== null;
    };
    await until(ended, 120_000, "the sync ended", 5);
    const r = await child;
    look();
    return { r, seen };
  };

  it("under umask 000 the database, its -wal/-shm files and the lock beside it are 0600; the directory is left as it was", async () => {
    const dir = tempDir();
    chmodSync(dir, 0o755);
    const d = sqliteDest(join(dir, "copy.sqlite"));
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 20 } });
    let run: Awaited<ReturnType<typeof syncUnderUmask000>>;
    try {
      run = await syncUnderUmask000(dir, d.to);
    } finally {
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
    }
    expect(run.r.exitCode, String(run.r.stderr)).toBe(0);
    const names = [...run.seen.keys()];
    // The files SQLite keeps beside a database in WAL mode, and the run lock, were all seen.
    for (const name of ["copy.sqlite", "copy.sqlite-wal", "copy.sqlite-shm", ".copy.sqlite.lock"])
      expect(names).toContain(name);
    for (const name of names) {
      expect(name).toMatch(/^(copy\.sqlite(-wal|-shm|-journal)?|\.copy\.sqlite\.lock(\.tmp-[0-9a-f]+)?)$/);
      expect([...run.seen.get(name)!], name).toEqual([0o600]);
    }
    // What is left after the run: the database (SQLite removes -wal and -shm at the last close).
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777, name).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o755);
    await expectEqualsTruth(s.sb, d);
    await d.close();

    // A second run into the existing copy, under umask 000 again: still 0600 throughout.
    const again = await syncUnderUmask000(dir, d.to);
    expect(again.r.exitCode, String(again.r.stderr)).toBe(0);
    for (const [name, modes] of again.seen) expect([...modes], name).toEqual([0o600]);
  });

  it("an existing database keeps the mode it was given", async () => {
    const d = sqliteDest();
    await d.exec("PRAGMA user_version = 0");
    await d.close();
    chmodSync(d.path, 0o640);
    const r = await runIn(["sync", "--to", d.to, "--only", "offers"], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(statSync(d.path).mode & 0o777).toBe(0o640);
  });
});
