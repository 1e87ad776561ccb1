// Bulk assignment: body rules, selection summary, refusals (no job created), asynchronous jobs polled to
// completion, failures, assignment.completed, a 10,000-creator roster, restart with a running job.
import { describe, expect, it } from "vitest";
import { JOB_PACE } from "../../src/sandbox/domain/jobs.js";
import { campaignsArea } from "../../src/sandbox/store.js";
import { readStore } from "./core-util.js";
import { strictEvents } from "../../src/spec/events.js";
import { type AssignmentJob, strictLinks } from "../../src/spec/links.js";
import { http, type RunningSandbox, tempDir } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { brandAccess, eventsOf, link, main, path, putCreator, setStatus } from "./campaigns-fixtures.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";
import { until } from "../helpers/wait.js";

const box = useSandbox({ seed: "empty" });

const assign = (s: RunningSandbox, campaignId: string, body: unknown) =>
  http(s, "POST", `/campaigns/${campaignId}/assignments`, { body });
const jobsCount = (s: RunningSandbox) => campaignsArea(main(s)).jobs.size;

async function batch(s: RunningSandbox, creators: { externalId: string; name: string; active?: boolean }[]) {
  const res = await http(s, "POST", "/creators/batch", { body: { creators } });
  expect(res.status).toBe(200);
  expect(res.body.summary.rejected).toBe(0);
}

/** Polls the job until it finishes; returns every state seen. */
async function poll(s: RunningSandbox, campaignId: string, jobId: string, everyMs = 20) {
  const seen: AssignmentJob[] = [];
  const finished = async () => {
    const job = strict(
      strictLinks.AssignmentJob,
      await http(s, "GET", `/campaigns/${campaignId}/assignments/${jobId}`),
    );
    seen.push(job);
    return job.status === "completed" || job.status === "failed";
  };
  await until(finished, 60_000, "the job finished", everyMs);
  return seen;
}

/**
 * Runs `fn` with the pace's tick set to `tickMs`: made longer than a test can take, no step falls
 * due in real time, and a job moves only when the sandbox clock is advanced (stepByStep).
 */
async function withPace<T>(tickMs: number, fn: () => Promise<T>): Promise<T> {
  const was = JOB_PACE.tickMs;
  JOB_PACE.tickMs = tickMs;
  try {
    return await fn();
  } finally {
    JOB_PACE.tickMs = was;
  }
}

/** Reads the job, advancing the sandbox clock one tick between two reads, until it finishes. */
async function stepByStep(s: RunningSandbox, campaignId: string, jobId: string) {
  const seen: AssignmentJob[] = [];
  for (let i = 0; i < 100; i++) {
    const job = strict(
      strictLinks.AssignmentJob,
      await http(s, "GET", `/campaigns/${campaignId}/assignments/${jobId}`),
    );
    seen.push(job);
    if (job.status === "completed" || job.status === "failed") return seen;
    const step = await http(s, "POST", "/advance", { control: true, body: { duration: JOB_PACE.tickMs } });
    expect(step.status).toBe(200);
  }
  throw new Error("the job did not finish in 100 steps");
}

describe("request body", () => {
  it("externalIds (1..10,000 strings, scope optional 'selected') xor scope 'roster'", async () => {
    const c = await makeCampaign(box.sb);
    const n0 = jobsCount(box.sb);
    const bad: [unknown, string[] | undefined][] = [
      [{}, ["externalIds"]],
      [{ scope: "selected" }, ["externalIds"]],
      [{ scope: "roster", externalIds: ["a"] }, ["externalIds"]],
      [{ externalIds: [] }, ["externalIds"]],
      [{ externalIds: "a" }, ["externalIds"]],
      [{ externalIds: ["a", 2] }, ["externalIds.1"]],
      [{ externalIds: ["a"], scope: "everyone" }, ["scope"]],
      [{ scope: 1 }, ["scope"]],
      [{ externalIds: Array.from({ length: 10_001 }, (_, i) => `x${i}`) }, ["externalIds"]],
      [[], undefined],
      ["roster", undefined],
    ];
    for (const [b, keys] of bad) expectError(await assign(box.sb, c.id, b), 400, "validation_failed", keys);
    expectError(await box.http("POST", `/campaigns/${c.id}/assignments`), 400, "validation_failed");
    expect(jobsCount(box.sb)).toBe(n0);
    expectError(
      await box.http("POST", `/campaigns/${c.id}/assignments`, {
        key: box.readOnlyKey,
        body: { scope: "roster" },
      }),
      403,
      "forbidden",
    );
    expectError(
      await assign(box.sb, "00000000-0000-4000-8000-000000000000", { scope: "roster" }),
      404,
      "not_found",
    );
  });
});

describe("selection summary and job", () => {
  it("selected: duplicates once, unknown and inactive unmatched, already-linked skipped; job completes", async () => {
    const c = await makeCampaign(box.sb, { externalReference: "assign-sel" });
    await batch(box.sb, [
      { externalId: "s-1", name: "One" },
      { externalId: "s-2", name: "Two" },
      { externalId: "s-3", name: "Three" },
      { externalId: "s-off", name: "Off", active: false },
    ]);
    await link(box.sb, c.id, "s-1");
    await box.http("PATCH", path(c.id, "s-1"), { body: { active: false } });
    const res = await assign(box.sb, c.id, {
      externalIds: ["s-1", "s-2", " s-3 ", "s-2", "s-off", "ghost"],
      scope: "selected",
    });
    const { job, selection } = strict(strictLinks.AssignmentAccepted, res, 202);
    expect(selection).toEqual({
      scope: "selected",
      identifiersRead: 6,
      matched: 3,
      alreadyAssigned: 1,
      toAssign: 2,
      unmatched: 2,
      unmatchedSample: [
        { externalId: "s-off", reason: "inactive" },
        { externalId: "ghost", reason: "not_on_roster" },
      ],
    });
    expect(job).toMatchObject({
      campaignId: c.id,
      status: "queued",
      scope: "selected",
      totalCount: 4,
      assignedCount: 0,
      failedCount: 0,
      lastError: null,
      unassignableExternalIds: [],
      startedAt: null,
      completedAt: null,
    });
    const seen = await poll(box.sb, c.id, job.id);
    const done = seen.at(-1)!;
    expect(done.status).toBe("completed");
    expect(done.assignedCount).toBe(2);
    expect(done.failedCount).toBe(2);
    expect(done.unassignableExternalIds).toEqual(["s-off", "ghost"]);
    expect(done.startedAt).not.toBeNull();
    expect(done.completedAt).not.toBeNull();
    expect(done.lastError).toMatch(/2 creators could not be assigned/);
    // links exist; the already-linked creator was skipped, not reactivated
    const links = strict(strictLinks.ShareLinkPage, await box.http("GET", path(c.id)));
    expect(links.items.map((l) => [l.creator.externalId, l.active])).toEqual([
      ["s-1", false],
      ["s-2", true],
      ["s-3", true],
    ]);
    // assignment.completed with counts
    const ev = eventsOf(box.sb, "assignment.completed").find((e) => e.data.jobId === job.id)!;
    expect(ev.data).toEqual({
      jobId: job.id,
      campaign: { id: c.id, externalReference: "assign-sel", name: c.name },
      assigned: 2,
      failed: 2,
    });
    strictEvents.TypedEnvelope.parse(ev);
    // the job reads the same afterwards
    expect(
      strict(strictLinks.AssignmentJob, await box.http("GET", `/campaigns/${c.id}/assignments/${job.id}`)),
    ).toEqual(done);
  });

  it("unmatchedSample holds at most 50 entries; unassignableExternalIds is complete", async () => {
    const c = await makeCampaign(box.sb);
    await putCreator(box.sb, "real-1");
    const ghosts = Array.from({ length: 120 }, (_, i) => `ghost-${i}`);
    const { job, selection } = strict(
      strictLinks.AssignmentAccepted,
      await assign(box.sb, c.id, { externalIds: ["real-1", ...ghosts] }),
      202,
    );
    expect(selection.unmatched).toBe(120);
    expect(selection.unmatchedSample).toHaveLength(50);
    expect(selection.unmatchedSample[0]).toEqual({ externalId: "ghost-0", reason: "not_on_roster" });
    const done = (await poll(box.sb, c.id, job.id)).at(-1)!;
    expect(done).toMatchObject({ status: "completed", totalCount: 121, assignedCount: 1, failedCount: 120 });
    expect(done.unassignableExternalIds).toEqual(ghosts);
  });

  it("creators deactivated after queueing fail and are listed", async () => {
    const c = await makeCampaign(box.sb);
    await batch(box.sb, [
      { externalId: "d-1", name: "D1" },
      { externalId: "d-2", name: "D2" },
      { externalId: "d-3", name: "D3" },
    ]);
    const { job } = strict(
      strictLinks.AssignmentAccepted,
      await assign(box.sb, c.id, { externalIds: ["d-1", "d-2", "d-3"] }),
      202,
    );
    await putCreator(box.sb, "d-2", { active: false });
    const done = (await poll(box.sb, c.id, job.id)).at(-1)!;
    expect(done).toMatchObject({ status: "completed", totalCount: 3, assignedCount: 2, failedCount: 1 });
    expect(done.unassignableExternalIds).toEqual(["d-2"]);
  });
});

describe("refusals (no job created)", () => {
  it("400 when nothing can be assigned: all already linked, none matched, empty active roster", async () => {
    await withSandbox({ seed: "empty" }, async ({ sb: fresh }) => {
      const c = await makeCampaign(fresh);
      expectError(await assign(fresh, c.id, { scope: "roster" }), 400, "validation_failed");
      await putCreator(fresh, "r-1");
      await putCreator(fresh, "r-off", { active: false });
      expectError(await assign(fresh, c.id, { externalIds: ["nobody", "r-off"] }), 400, "validation_failed", [
        "externalIds",
      ]);
      await link(fresh, c.id, "r-1");
      const res = await assign(fresh, c.id, { externalIds: ["r-1"] });
      expectError(res, 400, "validation_failed", ["externalIds"]);
      expect(res.body.error.message).toMatch(/already has a link/);
      expectError(await assign(fresh, c.id, { scope: "roster" }), 400, "validation_failed", ["scope"]);
      expect(jobsCount(fresh)).toBe(0);
    });
  });

  // A minute's tick: the first job is still running when the second request comes, however slow the machine.
  it("409 while another job is queued or running (names the job), 409 ended, 409 brand access lost", () =>
    withPace(60_000, async () => {
      const c = await makeCampaign(box.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 5 });
      await batch(box.sb, [
        { externalId: "q-1", name: "Q1" },
        { externalId: "q-2", name: "Q2" },
      ]);
      const { job } = strict(
        strictLinks.AssignmentAccepted,
        await assign(box.sb, c.id, { externalIds: ["q-1"] }),
        202,
      );
      const n0 = jobsCount(box.sb);
      const busy = await assign(box.sb, c.id, { externalIds: ["q-2"] });
      const d = expectError(busy, 409, "conflict", ["jobId"]);
      expect(d).toEqual({ jobId: [job.id] });
      expect(busy.body.error.message).toContain(job.id);
      expect(jobsCount(box.sb)).toBe(n0);
      await stepByStep(box.sb, c.id, job.id);
      // another campaign is not blocked by it; after completion a new job is accepted
      const next = strict(
        strictLinks.AssignmentAccepted,
        await assign(box.sb, c.id, { externalIds: ["q-2"] }),
        202,
      );
      await stepByStep(box.sb, c.id, next.job.id);

      await putCreator(box.sb, "q-3");
      await brandAccess(box.sb, c.offer.brand.id, false);
      try {
        expectError(await assign(box.sb, c.id, { externalIds: ["q-3"] }), 409, "conflict");
      } finally {
        await brandAccess(box.sb, c.offer.brand.id, true);
      }
      await setStatus(box.sb, c.id, "ended");
      expectError(await assign(box.sb, c.id, { externalIds: ["q-3"] }), 409, "conflict");
      expectError(await assign(box.sb, c.id, { scope: "roster" }), 409, "conflict");
      expect(jobsCount(box.sb)).toBe(n0 + 1);
    }));
});

describe("GET job", () => {
  it("404 for an unknown job, a job of another campaign, another organization", async () => {
    const c = await makeCampaign(box.sb);
    const other = await makeCampaign(box.sb);
    await putCreator(box.sb, "g-1");
    const { job } = strict(
      strictLinks.AssignmentAccepted,
      await assign(box.sb, c.id, { externalIds: ["g-1"] }),
      202,
    );
    expectError(
      await box.http("GET", `/campaigns/${c.id}/assignments/00000000-0000-4000-8000-000000000000`),
      404,
      "not_found",
    );
    expectError(await box.http("GET", `/campaigns/${other.id}/assignments/${job.id}`), 404, "not_found");
    expectError(
      await box.http("GET", `/campaigns/${c.id}/assignments/${job.id}`, { key: box.sb.testKeys.otherOrgKey }),
      404,
      "not_found",
    );
    strict(
      strictLinks.AssignmentJob,
      await box.http("GET", `/campaigns/${c.id}/assignments/${job.id}`, { key: box.readOnlyKey }),
    );
    await poll(box.sb, c.id, job.id);
  });
});

describe("failed jobs", () => {
  it("fail-next-job: the job fails part-way, emits nothing, lists every creator without a link", async () => {
    const c = await makeCampaign(box.sb);
    const ids = Array.from({ length: 10 }, (_, i) => `f-${i}`);
    await batch(
      box.sb,
      ids.map((externalId) => ({ externalId, name: externalId })),
    );
    const ctl = await box.http("POST", `/campaigns/${c.id}/fail-next-job`, { control: true });
    expect(ctl.body).toEqual({ campaignId: c.id, failNextJob: true });
    const before = eventsOf(box.sb, "assignment.completed").length;
    const { job } = strict(
      strictLinks.AssignmentAccepted,
      await assign(box.sb, c.id, { externalIds: [...ids, "ghost-f"] }),
      202,
    );
    const done = (await poll(box.sb, c.id, job.id)).at(-1)!;
    expect(done.status).toBe("failed");
    expect(done.lastError).toMatch(/failure/i);
    expect(done.completedAt).not.toBeNull();
    expect(done.totalCount).toBe(11);
    expect(done.assignedCount).toBe(5);
    expect(done.failedCount).toBe(6);
    expect(done.unassignableExternalIds.sort()).toEqual(
      ["f-5", "f-6", "f-7", "f-8", "f-9", "ghost-f"].sort(),
    );
    expect(eventsOf(box.sb, "assignment.completed").length).toBe(before);
    // only the next job fails
    const again = strict(
      strictLinks.AssignmentAccepted,
      await assign(box.sb, c.id, { externalIds: ids }),
      202,
    );
    expect(again.selection).toMatchObject({ matched: 10, alreadyAssigned: 5, toAssign: 5 });
    const ok = (await poll(box.sb, c.id, again.job.id)).at(-1)!;
    expect(ok).toMatchObject({ status: "completed", assignedCount: 5, failedCount: 0, lastError: null });
  });

  // A minute's tick: the job has not finished when the campaign ends, however slow the machine.
  it("a campaign ended while its job runs fails the job", () =>
    withPace(60_000, async () => {
      const c = await makeCampaign(box.sb);
      const ids = Array.from({ length: 5 }, (_, i) => `e-${i}`);
      await batch(
        box.sb,
        ids.map((externalId) => ({ externalId, name: externalId })),
      );
      const { job } = strict(
        strictLinks.AssignmentAccepted,
        await assign(box.sb, c.id, { externalIds: ids }),
        202,
      );
      await setStatus(box.sb, c.id, "ended");
      const done = (await stepByStep(box.sb, c.id, job.id)).at(-1)!;
      expect(done).toMatchObject({ status: "failed", assignedCount: 0, failedCount: 5 });
      expect(done.lastError).toMatch(/ended/);
      expect(done.unassignableExternalIds).toEqual(ids);
    }));
});

describe("a 10,000-creator roster", () => {
  it("scope roster: queued → running → completed, assignedCount grows, counts exact", async () => {
    await withSandbox({ seed: "empty" }, async ({ sb: big }) => {
      for (let b = 0; b < 10; b++)
        await batch(
          big,
          Array.from({ length: 1000 }, (_, i) => ({
            externalId: `big-${b}-${i}`,
            name: `Creator ${b}/${i}`,
          })),
        );
      await batch(big, [{ externalId: "big-off", name: "Off", active: false }]);
      const c = await makeCampaign(big, { codeLimit: 1000 });
      const res = await assign(big, c.id, { scope: "roster" });
      const { job, selection } = strict(strictLinks.AssignmentAccepted, res, 202);
      expect(selection).toEqual({
        scope: "roster",
        identifiersRead: null,
        matched: 10_000,
        alreadyAssigned: 0,
        toAssign: 10_000,
        unmatched: 0,
        unmatchedSample: [],
      });
      expect(job.totalCount).toBe(10_000);
      // The accepted job is queued (its first step falls due at once: a poll may come after it).
      expect(job.status).toBe("queued");
      const seen = [job, ...(await withPace(3_600_000, () => stepByStep(big, c.id, job.id)))];
      const statuses = new Set(seen.map((j) => j.status));
      expect(statuses).toEqual(new Set(["queued", "running", "completed"]));
      const running = seen.filter((j) => j.status === "running").map((j) => j.assignedCount);
      expect(new Set(running).size).toBeGreaterThan(2);
      for (let i = 1; i < seen.length; i++)
        expect(seen[i]!.assignedCount).toBeGreaterThanOrEqual(seen[i - 1]!.assignedCount);
      const done = seen.at(-1)!;
      expect(done).toMatchObject({
        status: "completed",
        totalCount: 10_000,
        assignedCount: 10_000,
        failedCount: 0,
        unassignableExternalIds: [],
        lastError: null,
      });
      const page = strict(
        strictLinks.ShareLinkPage,
        await http(big, "GET", `${path(c.id)}?pageSize=200&page=49`),
      );
      expect(page.totalCount).toBe(10_000);
      expect(page.items).toHaveLength(200);
      const codes = new Set([...campaignsArea(main(big)).links.get(c.id)!.values()].map((l) => l.shortCode));
      expect(codes.size).toBe(10_000);
      const ev = eventsOf(big, "assignment.completed");
      expect(ev.map((e) => [e.data.assigned, e.data.failed])).toEqual([[10_000, 0]]);
      // a second roster job has nothing left to assign
      expectError(await assign(big, c.id, { scope: "roster" }), 400, "validation_failed");
    });
  });
});

describe("restart", () => {
  it("a job running when the sandbox stops resumes after a restart from the same data dir", async () => {
    const dataDir = tempDir("pcli-jobs-");
    // Smaller chunks so the job is certainly still running when the sandbox closes.
    const pace = { ...JOB_PACE };
    JOB_PACE.chunk = 100;
    let campaignId = "";
    let jobId = "";
    await withSandbox({ dataDir, seed: "empty" }, async ({ sb: first }) => {
      for (let b = 0; b < 2; b++)
        await batch(
          first,
          Array.from({ length: 750 }, (_, i) => ({ externalId: `rs-${b}-${i}`, name: `R ${b}/${i}` })),
        );
      const c = await makeCampaign(first);
      campaignId = c.id;
      const { job } = strict(
        strictLinks.AssignmentAccepted,
        await assign(first, c.id, { scope: "roster" }),
        202,
      );
      jobId = job.id;
      // stop part-way: running with the first chunk assigned
      const partWay = async () => {
        const j = strict(
          strictLinks.AssignmentJob,
          await http(first, "GET", `/campaigns/${c.id}/assignments/${job.id}`),
        );
        expect(j.status).not.toBe("completed");
        return j.status === "running" && j.assignedCount > 0;
      };
      await until(partWay, 30_000, "the job running part-way", 5);
    });
    // The database holds the job part-way.
    const savedJob = await readStore(
      dataDir,
      (st) =>
        st.orgs
          .values()
          .map((o) => campaignsArea(o).jobs.get(jobId))
          .find(Boolean)!,
    );
    expect(savedJob.status).toBe("running");
    expect(savedJob.assignedCount).toBeGreaterThan(0);
    expect(savedJob.assignedCount).toBeLessThan(1500);
    try {
      await withSandbox({ dataDir }, async ({ sb: second }) => {
        const done = (await poll(second, campaignId, jobId)).at(-1)!;
        expect(done).toMatchObject({ status: "completed", assignedCount: 1500, failedCount: 0 });
        expect(eventsOf(second, "assignment.completed").map((e) => e.data.jobId)).toEqual([jobId]);
        const links = strict(strictLinks.ShareLinkPage, await http(second, "GET", path(campaignId)));
        expect(links.totalCount).toBe(1500);
      });
    } finally {
      Object.assign(JOB_PACE, pace);
    }
  });
});
