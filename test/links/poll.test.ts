// Polling an assignment job: the adaptive interval, --timeout (exit 8) and Ctrl-C, on a fake clock.
import { afterEach, describe, expect, it } from "vitest";
import { queueAssignment } from "../../src/api/links.js";
import { followJob, POLL_MAX_MS, POLL_START_MS } from "../../src/commands/links/jobs.js";
import type { Clock } from "../../src/context.js";
import { CancelledError, PendingError } from "../../src/errors.js";
import { exitCodeFor } from "../../src/main.js";
import { JOB_PACE } from "../../src/sandbox/domain/jobs.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";

const box = useSandbox();
const pace = { ...JOB_PACE };
afterEach(() => {
  Object.assign(JOB_PACE, pace);
});

function fakeContext(onSleep: (ms: number) => void, signal?: AbortSignal) {
  let now = Date.parse("2026-01-01T00:00:00Z");
  const sleeps: number[] = [];
  const clock: Clock = {
    now: () => new Date(now),
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
      onSleep(ms);
    },
  };
  const { ctx } = box.context({ clock, ...(signal ? { signal } : {}) });
  return { ctx, sleeps };
}

async function queuedJob() {
  await box.http("POST", "/reset", { control: true, body: {} });
  JOB_PACE.tickMs = 600_000; // the job stays queued for the whole test
  const c = await makeCampaign(box.sb, { externalReference: "camp" });
  const { job } = await queueAssignment(box.client(), c.id, { scope: "roster" }, "camp");
  return { campaign: c as never, jobId: job.id };
}

describe("job polling", () => {
  it("starts at 250 ms, grows ×1.5 up to 5 s, and stops at --timeout with exit 8 and the resume command", async () => {
    const { campaign, jobId } = await queuedJob();
    const { ctx, sleeps } = fakeContext(() => {});
    const err = await followJob(ctx, await ctx.api(), campaign, "camp", jobId, 30_000).catch((e) => e);
    await ctx.close();
    expect(err).toBeInstanceOf(PendingError);
    expect(exitCodeFor(err)).toBe(8);
    expect(err.message).toMatch(/still queued after 30s/);
    expect(err.hint).toContain(`partner-cli links job camp ${jobId} --wait`);
    const expected: number[] = [];
    let interval = POLL_START_MS;
    let left = 30_000;
    while (left > 0) {
      const s = Math.min(interval, left);
      expected.push(s);
      left -= s;
      interval = Math.min(Math.round(interval * 1.5), POLL_MAX_MS);
    }
    expect(sleeps).toEqual(expected);
    expect(sleeps.slice(0, 4)).toEqual([250, 375, 563, 845]);
    expect(Math.max(...sleeps)).toBe(5000);
  });

  it("Ctrl-C while waiting: CancelledError (exit 130) that says the job keeps running and how to follow it", async () => {
    const { campaign, jobId } = await queuedJob();
    const ac = new AbortController();
    let n = 0;
    const { ctx } = fakeContext(() => {
      if (++n === 3) ac.abort();
    }, ac.signal);
    const err = await followJob(ctx, await ctx.api(), campaign, "camp", jobId, 600_000).catch((e) => e);
    await ctx.close();
    expect(err).toBeInstanceOf(CancelledError);
    expect(exitCodeFor(err)).toBe(130);
    expect(`${err.message} ${err.hint}`).toMatch(/keeps running.*partner-cli links job camp/);
  });
});
