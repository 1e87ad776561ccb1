// Time moves for assignment jobs on the sandbox clock (issue 22 item 4), on a served sandbox: a job
// steps every JOB_PACE.tickMs of SANDBOX time, so `sandbox advance` moves it along, each step stamped
// with the time it was due, and the assignment.completed event is emitted at the time it completed
// (and delivered). The embedded sandbox, between commands: test/e2e/embedded-time.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { JOB_PACE, paceFromEnv } from "../../src/sandbox/domain/jobs.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { receiver } from "./webhooks-receiver.js";

const s = useSandbox();
const pace = { ...JOB_PACE };
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
  // 2 creators per step, a step every minute of sandbox time: real time alone (seconds) moves nothing.
  Object.assign(JOB_PACE, { chunk: 2, tickMs: 60_000 });
});
afterEach(() => {
  Object.assign(JOB_PACE, pace);
});

const advance = async (duration: string) =>
  expect((await s.http("POST", "/advance", { control: true, body: { duration } })).status).toBe(200);
const isoPlus = (iso: string, ms: number) => `${new Date(Date.parse(iso) + ms).toISOString().slice(0, 19)}Z`;

async function queue(campaignId: string, externalIds: string[]) {
  const r = await s.http("POST", `/campaigns/${campaignId}/assignments`, { body: { externalIds } });
  expect(r.status).toBe(202);
  return r.body.job as { id: string; createdAt: string };
}

async function jobOf(campaignId: string, jobId: string) {
  const r = await s.http("GET", `/campaigns/${campaignId}/assignments/${jobId}`);
  expect(r.status).toBe(200);
  return r.body;
}

describe("assignment jobs on the sandbox clock (served)", () => {
  it("sandbox advance moves a job step by step; times are the steps' due times; its event is emitted then", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "camp" });
    const job = await queue(c.id, ["cr-0001", "cr-0002", "cr-0003", "nobody"]);
    expect(await jobOf(c.id, job.id)).toMatchObject({ status: "queued", assignedCount: 0 });

    await advance("90s"); // +60s: running, nothing processed yet
    expect(await jobOf(c.id, job.id)).toMatchObject({
      status: "running",
      startedAt: isoPlus(job.createdAt, 60_000),
      assignedCount: 0,
      completedAt: null,
    });
    await advance("1m"); // +120s: the first 2 creators
    expect(await jobOf(c.id, job.id)).toMatchObject({ status: "running", assignedCount: 2, failedCount: 1 });
    expect((await s.http("GET", `/campaigns/${c.id}/creators`)).body.totalCount).toBe(2);
    expect(
      (await s.http("GET", "/events?type=assignment.completed")).body.items.map((e: any) => e.data.jobId),
    ).toEqual([]);

    await advance("1h"); // +180s: the last one, completed then (not at the advanced "now")
    const done = await jobOf(c.id, job.id);
    expect(done).toMatchObject({
      status: "completed",
      totalCount: 4,
      assignedCount: 3,
      failedCount: 1,
      unassignableExternalIds: ["nobody"],
      completedAt: isoPlus(job.createdAt, 180_000),
    });
    const links = (await s.http("GET", `/campaigns/${c.id}/creators`)).body.items;
    expect(Object.fromEntries(links.map((l: any) => [l.creator.externalId, l.assignedAt]))).toEqual({
      "cr-0001": isoPlus(job.createdAt, 120_000),
      "cr-0002": isoPlus(job.createdAt, 120_000),
      "cr-0003": isoPlus(job.createdAt, 180_000),
    });
    const events = (await s.http("GET", "/events?type=assignment.completed")).body.items;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      occurredAt: done.completedAt,
      data: { jobId: job.id, assigned: 3, failed: 1 },
    });
    // Nothing moves a finished job again.
    await advance("1h");
    expect(await jobOf(c.id, job.id)).toEqual(done);
    expect((await s.http("GET", "/events?type=assignment.completed")).body.items).toHaveLength(1);
  });

  it("jobs of two campaigns step in due order; a campaign ended meanwhile fails its job at the next step", async () => {
    const a = await makeCampaign(s.sb, { externalReference: "a", status: "active" });
    const b = await makeCampaign(s.sb, { externalReference: "b", status: "active" });
    const ja = await queue(a.id, ["cr-0001", "cr-0002", "cr-0003"]);
    await advance("30s");
    const jb = await queue(b.id, ["cr-0004", "cr-0005"]);
    await advance("70s"); // a: running (+60s); b: running (+60s from its own start)
    const end = await s.http("POST", `/campaigns/${a.id}/status`, { body: { status: "ended" } });
    expect(end.status).toBe(200);
    await advance("10m");
    expect(await jobOf(a.id, ja.id)).toMatchObject({
      status: "failed",
      assignedCount: 0,
      failedCount: 3,
      lastError: "The campaign ended while the job was running.",
    });
    const jobB = await jobOf(b.id, jb.id);
    expect(jobB).toMatchObject({
      status: "completed",
      assignedCount: 2,
      completedAt: isoPlus(jb.createdAt, 120_000),
    });
    const events = (await s.http("GET", "/events?type=assignment.completed")).body.items;
    expect(events.map((e: any) => e.data.jobId)).toEqual([jb.id]);
  });

  it("the completed event is delivered to a receiver subscribed to it after the advance", async () => {
    const rx = await receiver();
    try {
      const ep = await s.http("POST", "/webhooks", {
        body: { url: rx.url, eventTypes: ["assignment.completed"] },
      });
      expect(ep.status).toBe(201);
      const c = await makeCampaign(s.sb, { externalReference: "camp" });
      const job = await queue(c.id, ["cr-0001"]);
      await advance("5m");
      const [got] = await rx.waitFor(1);
      expect(got!.json).toMatchObject({ type: "assignment.completed", data: { jobId: job.id, assigned: 1 } });
      expect(got!.json.occurredAt).toBe(isoPlus(job.createdAt, 120_000));
    } finally {
      await rx.close();
    }
  });
});

describe("PARTNER_SANDBOX_JOB_PACE", () => {
  it('reads "<creators per step>/<duration>"; anything else keeps the default', () => {
    expect(paceFromEnv({ PARTNER_SANDBOX_JOB_PACE: "2/20s" })).toEqual({ chunk: 2, tickMs: 20_000 });
    expect(paceFromEnv({ PARTNER_SANDBOX_JOB_PACE: " 500 / 1m " })).toEqual({ chunk: 500, tickMs: 60_000 });
    for (const bad of ["", "0/1s", "2/0s", "2", "x/1s", "2/soon"])
      expect(paceFromEnv({ PARTNER_SANDBOX_JOB_PACE: bad })).toEqual({ chunk: 1000, tickMs: 100 });
    expect(paceFromEnv({})).toEqual({ chunk: 1000, tickMs: 100 });
  });
});
