// The copy against a machine clock that is wrong: the roster's checkpoint is the service's time (the
// Date header of the read's first answer, or the newest updatedAt read), so a clock 10 minutes fast
// or a day slow loses no roster change and does not read the whole roster again; `sync status` says when the clocks
// differ by more than a minute. The sandbox stamps every answer's Date from its own clock.
import { describe, expect, it } from "vitest";
import { type Clock, systemClock } from "../../src/clock.js";
import { syncRun } from "../../src/commands/sync/run.js";
import { syncStatusRun } from "../../src/commands/sync/status.js";
import { useSandbox } from "../helpers/harness.js";
import { sqliteDest } from "./destinations.js";
import { allOf } from "./truth.js";

const MINUTE = 60_000;
const DAY = 86_400_000;

describe("sync: a machine clock that is wrong", () => {
  const s = useSandbox({ resetEach: true });
  /** The CLI's clock: the sandbox's (the service's) plus `offsetMs`, moving with it. */
  const clockOff = (offsetMs: number): Clock => ({
    now: () => new Date(s.sb.sandbox.clock.nowMs() + offsetMs),
    sleep: systemClock.sleep,
  });
  const advance = (duration: string) => s.http("POST", "/advance", { control: true, body: { duration } });
  const put = (id: string, name: string) => s.http("PUT", `/creators/${id}`, { body: { name } });

  const syncCreators = async (to: string, clock: Clock) => {
    const { ctx, stderr } = s.context({ clock });
    try {
      const summary = await syncRun({ to, only: "creators" }, ctx);
      return { creators: summary.kinds.creators!, stderr: stderr() };
    } finally {
      await ctx.close();
    }
  };

  it("the sandbox's answers carry a Date header from its clock, not the machine's", async () => {
    const before = s.sb.sandbox.clock.nowMs();
    await advance("1d");
    const r = await s.http("GET", "/me");
    const date = Date.parse(r.headers.get("date")!);
    expect(date).toBeGreaterThanOrEqual(Math.floor((before + DAY) / 1000) * 1000);
    expect(date).toBeLessThanOrEqual(s.sb.sandbox.clock.nowMs());
    // A refused request is stamped the same way.
    const refused = await s.http("GET", "/me", { key: null });
    expect(refused.status).toBe(401);
    expect(Date.parse(refused.headers.get("date")!)).toBeGreaterThan(Date.now() + DAY - MINUTE);
  });

  for (const [what, offsetMs] of [
    ["10 minutes fast", 10 * MINUTE],
    ["a day slow", -DAY],
  ] as const)
    it(`with the machine's clock ${what}, every roster change reaches the copy, once`, async () => {
      const d = sqliteDest();
      const clock = clockOff(offsetMs);
      const total = (await allOf(s.sb, "/creators")).length;
      const first = await syncCreators(d.to, clock);
      expect(first.creators).toMatchObject({ read: total, changed: total });
      // The checkpoint is the service's time of the read less the 5-minute overlap.
      const [[since]] = (await d.query("SELECT since FROM sync_state WHERE feed = 'creators'")) as [[string]];
      const serviceNow = s.sb.sandbox.clock.nowMs();
      expect(Date.parse(since)).toBeLessThanOrEqual(serviceNow - 5 * MINUTE);
      expect(Date.parse(since)).toBeGreaterThan(serviceNow - 6 * MINUTE);

      await put("cr-0002", "Renamed Creator");
      await put("new-creator-1", "New Creator");
      const next = await syncCreators(d.to, clock);
      expect(next.creators).toMatchObject({ read: 2, changed: 2 });

      // The next read overlaps the last by 5 minutes (changes nothing); once past it, a read finds
      // nothing new, and the next change is read once.
      await advance("10m");
      expect((await syncCreators(d.to, clock)).creators).toMatchObject({ read: 2, changed: 0 });
      expect((await syncCreators(d.to, clock)).creators).toMatchObject({ read: 0, changed: 0 });
      await put("cr-0003", "Third Name");
      expect((await syncCreators(d.to, clock)).creators).toMatchObject({ read: 1, changed: 1 });

      // The copy equals the service's roster, each creator once.
      const service = await allOf(s.sb, "/creators");
      const rows = await d.query("SELECT external_id, name FROM creators ORDER BY external_id");
      expect(rows).toEqual(
        service.map((c) => [c.externalId, c.name]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
      );
      await d.close();
    });

  const status = async (to: string, clock: Clock, json = false) => {
    const { ctx, stdout, stderr } = s.context({ clock, globals: { json } });
    try {
      await syncStatusRun({ to }, ctx);
      return { stdout: stdout(), stderr: stderr() };
    } finally {
      await ctx.close();
    }
  };

  it("sync status warns when this machine's clock is more than a minute off the service's", async () => {
    const d = sqliteDest();
    await syncCreators(d.to, clockOff(0));
    const fast = await status(d.to, clockOff(10 * MINUTE));
    expect(fast.stderr).toMatch(/^Warning: this machine's clock is 10m ahead of the service's/m);
    expect(fast.stderr).toMatch(/set its clock \(NTP\)/);
    const slow = await status(d.to, clockOff(-DAY), true);
    expect(slow.stderr).toMatch(/^Warning: this machine's clock is 24h behind the service's/m);
    const skew = JSON.parse(slow.stdout).clockSkewSeconds;
    expect(Math.abs(skew + 86_400)).toBeLessThanOrEqual(2);
    // Within a minute: no warning.
    const close = await status(d.to, clockOff(20_000), true);
    expect(close.stderr).not.toMatch(/clock/);
    expect(Math.abs(JSON.parse(close.stdout).clockSkewSeconds - 20)).toBeLessThanOrEqual(2);
    await d.close();
  });
});
