// The export's guarantees under process failure, through the real binary: killed with SIGKILL at
// random moments and rerun each time, the output holds every id exactly once; two runs started
// together: one exports, the other exits 9.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { feedIds } from "../export/arrange.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { randomMoment, until } from "../helpers/wait.js";

const csvIds = (bytes: Buffer) =>
  (parse(bytes, { columns: true }) as Record<string, string>[]).map((r) => r.id!);

describe("redemptions export (e2e)", () => {
  const s = useSandbox();
  let campaignId: string;
  beforeAll(async () => {
    campaignId = (await makeCampaign(s.sb, FEED)).id;
    await simulate(s.sb, { campaign: campaignId, claims: 3200, redemptions: 3000, seed: 11 });
  });

  const envFor = (configDir: string) => ({
    PARTNER_CLI_CONFIG_DIR: configDir,
    PARTNER_BASE_URL: s.url,
    PARTNER_API_KEY: s.writeKey,
  });

  it("killed with SIGKILL at twenty random moments and rerun, the output holds every id exactly once", async () => {
    const configDir = tempDir();
    const out = join(tempDir(), "redemptions.csv");
    // Slow each request a little so kills land mid-run, at every stage.
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 25 } });
    let killed = 0;
    let killedMidExport = 0;
    let repaired = 0;
    const size = () => (existsSync(out) ? statSync(out).size : 0);
    try {
      for (let i = 0; i < 20; i++) {
        // New rows arrive between runs, so every run has pages to write when it is killed.
        await simulate(s.sb, { campaign: campaignId, claims: 400, redemptions: 400, seed: 100 + i });
        const child = execa("node", [BIN, "redemptions", "export", "--out", out, "--page-size", "50"], {
          env: envFor(configDir),
          reject: false,
          stdin: "ignore",
        });
        const before = size();
        if (i % 2 === 0) {
          // Half the kills land while rows are being written: wait until the file grows, then a bit more.
          await until(() => size() > before || child.exitCode !== null, 20_000).catch(() => {});
          await randomMoment(150);
        } else {
          // The other half at any moment, start-up included.
          await randomMoment(1500);
        }
        if (child.exitCode === null && child.kill("SIGKILL")) {
          killed++;
          if (size() > before) killedMidExport++;
        }
        const r = await child;
        // Every run that was not killed succeeded: the tail a killed run left was always provably its
        // own unfinished write (never refused as foreign bytes).
        if (!r.isTerminated) expect(r.exitCode, String(r.stderr)).toBe(0);
        if (/Removed [\d,]+ bytes that an interrupted run wrote/.test(String(r.stderr))) repaired++;
      }
    } finally {
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
    }
    const final = await cli(["redemptions", "export", "--out", out], { env: envFor(configDir) });
    expect(final.exitCode, final.stderr).toBe(0);
    if (final.stderr.includes("Removed")) repaired++;
    console.log(`SIGKILL test: ${killed} kills, ${killedMidExport} mid-export, ${repaired} tails cut`);
    const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    const ids = rows.map((r) => r.id);
    expect(killed).toBeGreaterThan(10);
    // Most kills must land while rows were being written, not only during start-up.
    expect(killedMidExport).toBeGreaterThanOrEqual(8);
    expect(ids.length).toBe(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(await feedIds(s.sb)));
    // Twenty runs of a few seconds each: more than the default minute on a busy machine.
  }, 180_000);

  it("two config dirs (two hosts) started at the same instant on one --out, 20 times: one exports, the other exits 9, every id once", async () => {
    await s.http("POST", "/faults", { control: true, body: { latencyMs: 100 } });
    const all = await feedIds(s.sb);
    try {
      for (let trial = 0; trial < 20; trial++) {
        const out = join(tempDir(), "shared.csv");
        const [a, b] = await Promise.all(
          [tempDir(), tempDir()].map((configDir) =>
            cli(["redemptions", "export", "--out", out, "--page-size", "1000"], { env: envFor(configDir) }),
          ),
        );
        const codes = [a!.exitCode, b!.exitCode].sort();
        expect(codes, `trial ${trial}: ${a!.stderr}\n${b!.stderr}`).toEqual([0, 9]);
        const loser = a!.exitCode === 9 ? a! : b!;
        expect(loser.stdout).toBe("");
        // The holder is named once it has written its record; a loser that comes in the instant
        // between the lock and the record is told the lock file is held.
        expect(loser.stderr).toMatch(/is in use by another (partner-cli run \(pid|process: .*is locked)/);
        const ids = csvIds(readFileSync(out));
        expect(ids.length).toBe(all.length);
        expect(new Set(ids)).toEqual(new Set(all));
      }
    } finally {
      await s.http("POST", "/faults", { control: true, body: { latencyMs: 0 } });
    }
  }, 180_000);

  it("exits 0 with a one-line summary when there is nothing new, rows on stdout when piped", async () => {
    const configDir = tempDir();
    const first = await cli(["redemptions", "export", "--cursor", "default"], { env: envFor(configDir) });
    expect(first.exitCode).toBe(0);
    const lines = first.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^id,serializedGs1,redeemedAt/);
    expect(lines.length - 1).toBe((await feedIds(s.sb)).length);
    const second = await cli(["redemptions", "export", "--cursor", "default"], { env: envFor(configDir) });
    expect(second.exitCode).toBe(0);
    expect(second.stdout.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toMatch(/Exported 0 new redemptions/);
    const listed = await cli(["cursors", "list", "--json"], { env: envFor(configDir) });
    expect(listed.exitCode).toBe(0);
    expect(
      JSON.parse(listed.stdout).some(
        (c: { name: string; feed: string }) => c.name === "default" && c.feed === "redemptions",
      ),
    ).toBe(true);
  });
});
