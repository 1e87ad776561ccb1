// End to end: links commands through the built bin against a sandbox on port 0 (in this process,
// so the test can slow its job runner down and look inside it).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JOB_PACE } from "../../src/sandbox/domain/jobs.js";
import { campaignsArea } from "../../src/sandbox/store.js";
import { addCreators } from "../campaigns/helpers.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { BIN, cli } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";
import { until } from "../helpers/wait.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
const pace = { ...JOB_PACE };
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
  env = s.env({}, { configDir: tempDir() });
});
afterEach(() => {
  Object.assign(JOB_PACE, pace);
});

function savedJobs(): { jobId: string }[] {
  try {
    const data = JSON.parse(readFileSync(join(env.PARTNER_CLI_CONFIG_DIR!, "config.json"), "utf8"));
    return Object.values(data.jobs ?? {});
  } catch {
    return [];
  }
}

function jobsInSandbox(campaignId: string): string[] {
  const ids: string[] = [];
  for (const state of s.sb.sandbox.store.orgs.values())
    for (const j of campaignsArea(state).jobs.values()) if (j.campaignId === campaignId) ids.push(j.id);
  return ids;
}

describe("links (built bin)", () => {
  it("the nightly job: assign --roster twice exits 0 both times; the second says there is nothing to do, once", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const first = await cli(["links", "assign", "camp", "--roster"], { env });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/11 assigned/);
    const second = await cli(["links", "assign", "camp", "--roster"], { env });
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toBe("");
    expect(second.stderr).toBe(
      "Nothing to do: all 11 active creators already have a link on campaign camp. No job was queued.",
    );
    expect(second.stderr).not.toMatch(/Error/);
    // No second job was queued.
    expect(jobsInSandbox(c.id)).toHaveLength(1);
    // A creator joins: the next night assigns exactly that one.
    await s.http("PUT", "/creators/cr-new", { body: { name: "New Creator" } });
    const third = await cli(["links", "assign", "camp", "--roster", "--json"], { env });
    expect(third.exitCode).toBe(0);
    expect(JSON.parse(third.stdout).summary).toEqual({ assigned: 1, failed: 0, unassignable: 0 });
    // No line of any run's stderr is printed twice.
    for (const r of [first, second, third]) {
      const lines = r.stderr.split("\n").filter(Boolean);
      expect(new Set(lines).size).toBe(lines.length);
    }
  });

  it("assign --roster --json, piped: one JSON object on stdout; export as CSV; alias 'link'", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const r = await cli(["links", "assign", "camp", "--roster", "--json"], { env });
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.summary).toEqual({ assigned: 11, failed: 0, unassignable: 0 });
    expect(out.selection.toAssign).toBe(11);
    expect(r.stderr).toMatch(/Queued job/);
    const exp = await cli(["link", "export", "camp"], { env });
    expect(exp.exitCode).toBe(0);
    const lines = exp.stdout.trim().split("\n");
    expect(lines[0]).toBe("externalId,name,shareUrl,shortCode,statsUrl,active");
    expect(lines).toHaveLength(12);
    expect(exp.stderr).toMatch(/Exported 11 share links/);
  });

  it("more than 10,000 ids: exit 2 before any request; unassignable creators: exit 3", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const dir = tempDir();
    const big = join(dir, "big.txt");
    writeFileSync(big, Array.from({ length: 10_001 }, (_, i) => `c-${i}`).join("\n"));
    const r = await cli(["links", "assign", "camp", "--ids", big], { env });
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/at most 10,000/);
    expect(jobsInSandbox(c.id)).toHaveLength(0);
    const some = await cli(["links", "assign", "camp", "cr-0001", "ghost"], { env });
    expect(some.exitCode).toBe(3);
    expect(some.stdout).toMatch(/^assigned\t1$/m);
    expect(some.stderr).toMatch(/1 creator could not be assigned a link/);
  });

  it("a run killed while polling is resumed by the next run: same job, no second job", {
    timeout: 90_000,
  }, async () => {
    Object.assign(JOB_PACE, { chunk: 20, tickMs: 100 });
    await addCreators(s.sb, 1000);
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const child = execa("node", [BIN, "links", "assign", "camp", "--roster"], {
      env: { NO_COLOR: "1", ...env },
      reject: false,
      stdin: "ignore",
    });
    await until(() => savedJobs().length > 0, 60_000, "the job id saved");
    child.kill("SIGKILL");
    const killed = await child;
    expect(killed.signal).toBe("SIGKILL");
    const [saved] = savedJobs();
    expect(jobsInSandbox(c.id)).toEqual([saved!.jobId]);

    const r = await cli(["links", "assign", "camp", "--roster", "--json"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`(Resuming job|Job) ${saved!.jobId}`));
    expect(r.stderr).not.toMatch(/Queued job/);
    const out = JSON.parse(r.stdout);
    expect(out.job.id).toBe(saved!.jobId);
    expect(out.summary.assigned).toBe(1011);
    expect(jobsInSandbox(c.id)).toEqual([saved!.jobId]);
    expect(savedJobs()).toEqual([]);
  });
});
