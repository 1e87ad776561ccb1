import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { linksAssignRun } from "../../src/commands/links/assign.js";
import { readIdList } from "../../src/csv/id-list.js";
import { linksJobRun } from "../../src/commands/links/job.js";
import { JOB_PACE } from "../../src/sandbox/domain/jobs.js";
import { addCreators } from "../campaigns/helpers.js";
import { makeCampaign, runFn } from "../helpers/fixtures.js";
import { tempDir, type testContext } from "../helpers/sandbox.js";
import { PassThrough } from "node:stream";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox();
const pace = { ...JOB_PACE };
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});
afterEach(() => {
  Object.assign(JOB_PACE, pace);
});

const dir = mkdtempSync(join(tmpdir(), "assign-"));
function file(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

async function run(
  o: Partial<Parameters<typeof linksAssignRun>[0]>,
  opts: Parameters<typeof testContext>[1] = {},
) {
  return runFn(s, (ctx) => linksAssignRun({ campaign: "camp", externalIds: [], ...o }, ctx), opts);
}

async function jobsInConfig(configDir: string): Promise<Record<string, { jobId: string }>> {
  try {
    return JSON.parse(readFileSync(join(configDir, "config.json"), "utf8")).jobs ?? {};
  } catch {
    return {};
  }
}

describe("links assign: choosing creators", () => {
  it("needs exactly one source: --roster, --ids or ids", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const none = await run({});
    expect(none.exitCode).toBe(2);
    expect(none.error).toMatch(/--roster, --ids FILE, or EXTERNAL_ID/);
    const two = await run({ roster: true, externalIds: ["cr-0001"] });
    expect(two.exitCode).toBe(2);
    expect(two.error).toMatch(/exactly one of .*got --roster and EXTERNAL_ID/);
  });

  it("more than 10,000 ids is refused before any request", async () => {
    const ids = Array.from({ length: 10_001 }, (_, i) => `id-${i}`).join("\n");
    // An unknown campaign proves no request was made: the error is the usage error, not a 404.
    const r = await run({ campaign: "does-not-exist", ids: file("big.txt", ids) });
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/10,001 creator ids given; one assignment takes at most 10,000/);
  });

  it("--ids reads a CSV with an externalId column (any position, BOM, quotes, formula escapes) or one id per line", async () => {
    const stdin = new PassThrough();
    const csv = await readIdList(
      file("ids.csv", '\uFEFFname,externalId\r\n"Ann, A",cr-1\r\nBo,"cr,2"\r\n\r\nCy,\'=cr3\r\nDup,cr-1\r\n'),
      stdin,
    );
    expect(csv).toEqual({ ids: ["cr-1", "cr,2", "=cr3"], read: 4, duplicates: 1, format: "csv" });
    const lines = await readIdList(file("ids.txt", 'cr-1\n  cr "2"  \n\ncr-3\r\n'), stdin);
    expect(lines).toEqual({ ids: ["cr-1", 'cr "2"', "cr-3"], read: 3, duplicates: 0, format: "lines" });
    const header = await readIdList(file("h.csv", "EXTERNALID\nx\n"), stdin);
    expect(header.ids).toEqual(["x"]);
    const piped = new PassThrough();
    piped.end("a\nb\n");
    expect((await readIdList("-", piped)).ids).toEqual(["a", "b"]);
  });

  it("--ids problems are usage errors: missing file, empty, invalid ids, not UTF-8", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const missing = await run({ ids: join(dir, "nope.csv") });
    expect(missing.exitCode).toBe(2);
    expect(missing.error).toMatch(/Cannot read .*nope\.csv: no such file/);
    const empty = await run({ ids: file("empty.txt", "\n \n") });
    expect(empty.exitCode).toBe(2);
    expect(empty.error).toMatch(/holds no externalIds/);
    const headerOnly = await run({ ids: file("header.csv", "externalId,name\n") });
    expect(headerOnly.error).toMatch(/holds no externalIds in its externalId column/);
    const long = await run({ ids: file("long.txt", `ok\n${"x".repeat(101)}\n`) });
    expect(long.exitCode).toBe(2);
    expect(long.error).toMatch(/line 2: .* is longer than 100 characters/);
    writeFileSync(join(dir, "bad.txt"), Buffer.from([0x63, 0x72, 0xe9, 0x0a]));
    const bad = await run({ ids: join(dir, "bad.txt") });
    expect(bad.exitCode).toBe(2);
    expect(bad.error).toMatch(/line 1, field 1: bytes that are not UTF-8/);
  });
});

describe("links assign: jobs", () => {
  it("assigns 10,000 creators, polled to completion with correct counts; --json prints {job, selection, summary}", async () => {
    await addCreators(s.sb, 10_000);
    await makeCampaign(s.sb, { externalReference: "camp" });
    const configDir = tempDir();
    const r = await run({ roster: true }, { globals: { json: true }, configDir });
    expect(r.error).toBe("");
    expect(r.exitCode).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.selection).toMatchObject({
      scope: "roster",
      identifiersRead: null,
      matched: 10_011,
      toAssign: 10_011,
    });
    expect(out.job).toMatchObject({ status: "completed", assignedCount: 10_011, failedCount: 0 });
    expect(out.summary).toEqual({ assigned: 10_011, failed: 0, unassignable: 0 });
    expect(r.stderr).toMatch(/Queued job /);
    expect(await jobsInConfig(configDir)).toEqual({}); // cleared once finished
    const links = await s.http("GET", `/campaigns/${out.job.campaignId}/creators?pageSize=1`);
    expect(links.body.totalCount).toBe(10_011);
  });

  it("selected ids: summary on stderr, unassignable creators → exit 3 and --unassignable FILE (CSV)", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const ids = file("sel.txt", "cr-0001\ncr-0002\nghost-1\ncr-0012\n=ghost\n");
    const unassignable = join(dir, "left.csv");
    const r = await run({ ids, unassignable });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(
      /Selection \(selected, 5 ids read\): 2 matched, 0 already have a link \(skipped\), 2 to assign, 3 not matched/,
    );
    expect(r.stderr).toMatch(/not matched: ghost-1 \(not_on_roster\)/);
    expect(r.stderr).toMatch(/not matched: cr-0012 \(inactive\)/);
    expect(r.stdout).toMatch(/^assigned\t2$/m);
    expect(r.stdout).toMatch(/^failed\t3$/m);
    expect(r.error).toMatch(/3 creators could not be assigned a link/);
    expect(r.error).toContain(`Their externalIds are in ${unassignable}`);
    const text = readFileSync(unassignable, "utf8");
    expect(text.split("\n")[0]).toBe("externalId,reason");
    expect(text).toContain("ghost-1,not_on_roster");
    expect(text).toContain("cr-0012,inactive");
    expect(text).toContain("'=ghost,not_on_roster");
    // The file round-trips into --ids (formula escape undone).
    expect((await readIdList(unassignable, new PassThrough())).ids.sort()).toEqual([
      "=ghost",
      "cr-0012",
      "ghost-1",
    ]);
  });

  it("counts of one are singular: 1 repeated id, 1 creator (issue 26)", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const r = await run({ ids: file("one.txt", "cr-0001\ncr-0001\n") });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("1 repeated id sent once.");
    expect(r.stderr).toMatch(/Queued job \S+ \(1 creator\)\./);
    expect(r.stderr).not.toMatch(/\b1 (creators|repeated ids)\b/);
  });

  it("every selected creator already linked → exit 0, nothing to do; ended campaign → exit 6", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const first = await run({ externalIds: ["cr-0001", "cr-0002"] });
    expect(first.exitCode).toBe(0);
    const again = await run({ externalIds: ["cr-0001", "cr-0002"] }, { globals: { json: true } });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(
      /^Nothing to do: all 2 selected creators already have a link on campaign camp\. No job was queued\.$/m,
    );
    expect(JSON.parse(again.stdout)).toEqual({
      job: null,
      selection: null,
      summary: { assigned: 0, failed: 0, unassignable: 0, alreadyAssigned: 2 },
    });
    await s.http("POST", `/campaigns/${c.id}/status`, { body: { status: "ended" } });
    const ended = await run({ roster: true });
    expect(ended.exitCode).toBe(6);
  });

  it("some selected already linked, the rest not active on the roster → exit 3 naming them, --unassignable lists them", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    expect((await run({ externalIds: ["cr-0001"] })).exitCode).toBe(0);
    const unassignable = join(tempDir(), "left.csv");
    const r = await run({ externalIds: ["cr-0001", "cr-0012", "ghost-9"], unassignable });
    expect(r.exitCode).toBe(3);
    expect(r.error).toMatch(
      /No job was queued: 1 of 3 selected creators already have a link on campaign camp; 2 cannot get one \(not active creators on the roster\): cr-0012, ghost-9\./,
    );
    expect(readFileSync(unassignable, "utf8")).toBe("externalId,reason\ncr-0012,\nghost-9,\n");
  });

  it("no active creator selected at all → exit 2, the service's reason said once", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const r = await run({ externalIds: ["cr-0012", "ghost-9"] });
    expect(r.exitCode).toBe(2);
    expect(r.error).toMatch(/None of the selected creators is an active creator on the roster/);
    expect(r.error).toMatch(/Nothing was queued/);
    // The service repeats its message in the details: it is printed once.
    expect(r.error.match(/is an active creator on the roster/gi)).toHaveLength(1);
  });

  it("a failed job → exit 3 with its lastError", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    await s.http("POST", `/campaigns/${c.id}/fail-next-job`, { control: true, body: {} });
    const r = await run({ roster: true }, { globals: { json: true } });
    expect(r.exitCode).toBe(3);
    expect(r.error).toMatch(/Job .* failed: Simulated failure/);
    expect(JSON.parse(r.stdout).job.status).toBe("failed");
  });

  it("saves the job id before polling; --no-wait returns the id; a rerun resumes that job instead of queuing another", async () => {
    JOB_PACE.chunk = 2;
    JOB_PACE.tickMs = 50;
    await addCreators(s.sb, 40);
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const configDir = tempDir();
    const queued = await run({ roster: true, wait: false }, { configDir });
    expect(queued.exitCode).toBe(0);
    const jobId = queued.stdout.trim();
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(queued.stderr).toContain(`partner-cli links job camp ${jobId} --wait`);
    const saved = await jobsInConfig(configDir);
    expect(Object.values(saved).map((j) => j.jobId)).toEqual([jobId]);
    expect(Object.keys(saved)[0]).toMatch(new RegExp(`^env\\|[0-9a-f-]{36}\\|${c.id}$`));

    // A different source this time: still the saved job is followed, nothing new is queued.
    const resumed = await run({ externalIds: ["cr-0001"] }, { configDir, globals: { json: true } });
    expect(resumed.exitCode).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`Resuming job ${jobId}.*not queuing another`));
    const out = JSON.parse(resumed.stdout);
    expect(out.job.id).toBe(jobId);
    expect(out.selection).toBeNull();
    expect(out.summary.assigned).toBe(51);
    expect(await jobsInConfig(configDir)).toEqual({});
  });

  it("a running job makes a new queue answer 409, which names it and the command to follow it (exit 6)", async () => {
    JOB_PACE.chunk = 1;
    JOB_PACE.tickMs = 200;
    await makeCampaign(s.sb, { externalReference: "camp" });
    const first = await run({ roster: true, wait: false }); // its own config dir: no saved job shared
    const jobId = first.stdout.trim();
    const second = await run({ roster: true });
    expect(second.exitCode).toBe(6);
    expect(second.error).toContain(jobId);
    expect(second.error).toContain(`partner-cli links job camp ${jobId} --wait`);
  });

  it("--timeout → exit 8 saying how to resume; links job --wait follows it to the end and clears the saved id", async () => {
    JOB_PACE.chunk = 1;
    JOB_PACE.tickMs = 100;
    await makeCampaign(s.sb, { externalReference: "camp" });
    const configDir = tempDir();
    const r = await run({ roster: true, timeout: 300 }, { configDir });
    expect(r.exitCode).toBe(8);
    expect(r.error).toMatch(/is still (queued|running) after 300ms/);
    const jobId = Object.values(await jobsInConfig(configDir))[0]!.jobId;
    expect(r.error).toContain(`partner-cli links job camp ${jobId} --wait`);

    const t = s.context({ configDir });
    const show = await runFn(t.ctx, () => linksJobRun({ campaign: "camp", jobId }, t.ctx));
    expect(show.exitCode).toBe(0);
    expect(t.stdout()).toMatch(new RegExp(`^jobId\\t${jobId}$`, "m"));
    expect(Object.keys(await jobsInConfig(configDir))).toHaveLength(1);

    Object.assign(JOB_PACE, { chunk: 1000, tickMs: 20 });
    const t2 = s.context({ configDir, globals: { json: true } });
    const waited = await runFn(t2.ctx, () => linksJobRun({ campaign: "camp", jobId, wait: true }, t2.ctx));
    await t.ctx.close();
    await t2.ctx.close();
    expect(waited.exitCode).toBe(0);
    expect(JSON.parse(t2.stdout())).toMatchObject({
      job: { id: jobId, status: "completed" },
      summary: { assigned: 11 },
    });
    expect(await jobsInConfig(configDir)).toEqual({});
  });

  it("links job on an unknown job id → exit 5", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    const t = s.context();
    const r = await runFn(t.ctx, () =>
      linksJobRun({ campaign: "camp", jobId: "00000000-0000-4000-8000-000000000000" }, t.ctx),
    );
    await t.ctx.close();
    expect(r.exitCode).toBe(5);
  });

  it("a lost answer to the queue request is not blindly repeated: a clear error (exit 1) says what to do", async () => {
    await makeCampaign(s.sb, { externalReference: "camp" });
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/campaigns/", method: "POST" },
    });
    const r = await run({ roster: true });
    await s.http("POST", "/faults", { control: true, body: { next: [], pathPrefix: null, method: null } });
    expect(r.exitCode).toBe(1);
    expect(r.error).toMatch(/not known whether a job was queued/);
    expect(r.error).toMatch(/Running the same "links assign" again is safe/);
  });
});
