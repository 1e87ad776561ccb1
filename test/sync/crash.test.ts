// sync's guarantees under process failure, through the real binary, on each destination: killed with
// SIGKILL at twenty random moments (new redemptions, exclusions and restorations arriving between
// runs) and rerun each time, the database ends equal to the service's truth; two runs started
// together: one syncs, the other exits 9.
import { existsSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { simulate, useFeedCampaign } from "../helpers/fixtures.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { destinationKinds, useDests, type TestDest } from "./destinations.js";
import { expectCountersMatch, expectEqualsTruth } from "./truth.js";
import { useSandbox } from "../helpers/harness.js";
import { randomMoment, until } from "../helpers/wait.js";

describe.each(destinationKinds())("sync into %s (e2e)", (kind) => {
  const s = useSandbox();
  const campaign = useFeedCampaign(s, { claims: 2200, redemptions: 2000, exclusions: 30, seed: 5 });
  const fresh = useDests(kind);
  const envFor = (configDir: string) => ({
    PARTNER_CLI_CONFIG_DIR: configDir,
    PARTNER_BASE_URL: s.url,
    PARTNER_API_KEY: s.writeKey,
  });
  /** Redemptions the copy's checkpoint covers (0 before the first commit). */
  const committed = async (d: TestDest) => {
    try {
      return Number((await d.query("SELECT items FROM sync_state WHERE feed = 'redemptions'"))[0]?.[0] ?? 0);
    } catch {
      return 0;
    }
  };
  /** A final run to completion; a PostgreSQL lock of a just-killed run may take a moment to go. */
  const finish = async (d: TestDest, configDir: string) => {
    const run = () => cli(["sync", "--to", d.to], { env: envFor(configDir) });
    const r = await until(async () => ((r) => (r.exitCode === 9 ? undefined : r))(await run()), 10_000).catch(
      () => undefined,
    );
    return r ?? run();
  };

  it("killed with SIGKILL at twenty random moments and rerun, the database ends equal to the service", async () => {
    const d = await fresh();
    const configDir = tempDir();
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 25 } });
    let killed = 0;
    let killedMidSync = 0;
    try {
      for (let i = 0; i < 20; i++) {
        // New rows and corrections arrive between runs, so every run has pages to commit when killed.
        await simulate(s.sb, {
          campaign: campaign.id,
          claims: 300,
          redemptions: 250,
          exclusions: 4,
          restorations: 2,
          seed: 200 + i,
        });
        const before = await committed(d);
        const child = execa("node", [BIN, "sync", "--to", d.to, "--page-size", "50"], {
          env: envFor(configDir),
          reject: false,
          stdin: "ignore",
        });
        if (i % 2 === 0) {
          // Half the kills land while pages are being committed: wait until the checkpoint moves.
          await until(async () => (await committed(d)) > before || child.exitCode !== null, 20_000).catch(
            () => {},
          );
          await randomMoment(150);
        } else {
          // The other half at any moment, start-up and migrations included.
          await randomMoment(1500);
        }
        if (child.exitCode === null && child.kill("SIGKILL")) {
          killed++;
          if ((await committed(d)) > before) killedMidSync++;
        }
        const r = await child;
        // A run that was not killed succeeded, or found the previous (killed) run's lock not yet gone.
        if (!r.isTerminated) expect([0, 9], r.stderr).toContain(r.exitCode);
      }
    } finally {
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
    }
    const final = await finish(d, configDir);
    expect(final.exitCode, final.stderr).toBe(0);
    expect(killed).toBeGreaterThan(10);
    expect(killedMidSync).toBeGreaterThanOrEqual(8);
    await expectEqualsTruth(s.sb, d);
    await expectCountersMatch(d);
  }, 240_000);

  it("Ctrl-C (SIGINT) mid-run: exit 130, what was committed stays, the next run completes the copy", async () => {
    const d = await fresh();
    const configDir = tempDir();
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 25 } });
    let r: Awaited<ReturnType<typeof execa>>;
    try {
      const child = execa("node", [BIN, "sync", "--to", d.to, "--page-size", "50"], {
        env: envFor(configDir),
        reject: false,
        stdin: "ignore",
      });
      await until(async () => (await committed(d)) > 0 || child.exitCode !== null, 20_000).catch(() => {});
      child.kill("SIGINT");
      r = await child;
    } finally {
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
    }
    expect(r.exitCode, String(r.stderr)).toBe(130);
    expect(String(r.stderr)).toMatch(
      /Interrupted; every page committed so far is in .* Run again to continue/,
    );
    // The pages committed before the interrupt are there, each with its checkpoint.
    const kept = await committed(d);
    expect(kept).toBeGreaterThan(0);
    expect(Number((await d.query("SELECT COUNT(*) FROM redemptions"))[0]![0])).toBe(kept);
    const final = await finish(d, configDir);
    expect(final.exitCode, final.stderr).toBe(0);
    await expectEqualsTruth(s.sb, d);
    await expectCountersMatch(d);
  }, 120_000);

  it("two runs started together: one syncs, the other exits 9", async () => {
    const d = await fresh();
    const configDir = tempDir();
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 30 } });
    try {
      const [a, b] = await Promise.all([
        cli(["sync", "--to", d.to, "--page-size", "200"], { env: envFor(configDir) }),
        cli(["sync", "--to", d.to, "--page-size", "200"], { env: envFor(configDir) }),
      ]);
      const codes = [a.exitCode, b.exitCode].sort();
      expect(codes, `${a.stderr}\n${b.stderr}`).toEqual([0, 9]);
      const loser = a.exitCode === 9 ? a : b;
      // The loser may read the lock in the moment before its holder has written who it is: the
      // message then names the lock file instead of the run, with the same exit code and next step.
      expect(loser.stderr).toMatch(
        /in use by another partner-cli run|being synced by another partner-cli run|is in use by another process: .*\.copy\.sqlite\.lock is locked/,
      );
    } finally {
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
    }
    await expectEqualsTruth(s.sb, d);
    await expectCountersMatch(d);
  }, 120_000);

  // SQLite's run lock is a file beside the database, so runs from different config dirs (or hosts on
  // shared storage) see each other; behind it, SQLite's locking and the checkpoints' generations.
  if (kind === "sqlite")
    it("two runs with different config dirs started together: one syncs, the other exits 9 (the lock is beside the database)", async () => {
      const d = (await fresh()) as TestDest & { path: string };
      const lockFile = join(dirname(d.path), `.${basename(d.path)}.lock`);
      const dirs = [tempDir(), tempDir()];
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 30 } });
      let runs: Awaited<ReturnType<typeof cli>>[];
      try {
        runs = await Promise.all(
          dirs.map((dir) => cli(["sync", "--to", d.to, "--page-size", "200"], { env: envFor(dir) })),
        );
      } finally {
        await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
      }
      const [a, b] = runs;
      expect([a!.exitCode, b!.exitCode].sort(), `${a!.stderr}\n${b!.stderr}`).toEqual([0, 9]);
      const loser = a!.exitCode === 9 ? a! : b!;
      expect(loser.stderr).toMatch(/The database sqlite:.* is in use by another partner-cli run \(pid \d+/);
      expect(loser.stderr).toMatch(/from this or another config directory or host/);
      // Nothing under either config dir's locks/, and the lock beside the database is released.
      for (const dir of dirs) expect(existsSync(join(dir, "locks"))).toBe(false);
      expect(existsSync(lockFile)).toBe(false);
      await expectEqualsTruth(s.sb, d);
      await expectCountersMatch(d);
    }, 120_000);
});
