// Events at any scale: a simulate of 25,000 items (claims, redemptions, exclusions, restorations)
// emits every event the spec names, so a `sync` into SQLite equals the sandbox's truth (every
// redemption's counting state, every event). `events: false` leaves them out, and the answer and
// GET /_sandbox/status say the log is incomplete.
import { describe, expect, it } from "vitest";
import { makeCampaign, simulate, TRAFFIC } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { runIn } from "../helpers/run.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { sqliteDest } from "../sync/destinations.js";
import { expectCountersMatch, expectEqualsTruth } from "../sync/truth.js";

describe("a 25,000-item simulate", () => {
  const box = useSandbox({ seed: "demo" });

  it("emits every event, and a sync equals the sandbox's truth", async () => {
    await makeCampaign(box.sb, {
      ...TRAFFIC,
      creators: ["cr-0001", "cr-0002", "cr-0003"],
      externalReference: "scale",
    });
    const r = await simulate(box.sb, {
      campaign: "scale",
      claims: 15_000,
      redemptions: 10_000,
      exclusions: 20,
      restorations: 4,
      days: 3,
      seed: 11,
    });
    expect(r).toMatchObject({ claims: 15_000, redemptions: 10_000, exclusions: 20, restorations: 4 });
    expect(r).toMatchObject({ itemEvents: true, eventLog: "complete" });
    // One event per claim, redemption and correction (plus no supply alert: the offer has no limit).
    expect(r.events).toBe(15_000 + 10_000 + 20 + 4);
    const status = await http(box.sb, "GET", "/status", { control: true });
    expect(status.body).toMatchObject({ eventLog: "complete", eventsLeftOut: null });

    const d = sqliteDest();
    const res = await runIn(["sync", "--to", d.to, "--json"], {
      env: { PARTNER_CLI_CONFIG_DIR: tempDir(), PARTNER_BASE_URL: box.url, PARTNER_API_KEY: box.writeKey },
    });
    expect(res.exitCode, res.stderr).toBe(0);
    await expectEqualsTruth(box.sb, d);
    await expectCountersMatch(d);
    const excluded = await d.query("SELECT count(*) FROM redemptions WHERE counting_state = 'excluded'");
    expect(Number(excluded[0]![0])).toBe(16);
    await d.close();
  }, 240_000);

  it("events: false leaves them out, and the answer and the status say the log is incomplete", async () => {
    const r = await simulate(box.sb, {
      campaign: "scale",
      claims: 50,
      redemptions: 20,
      events: false,
      seed: 2,
    });
    expect(r).toMatchObject({
      claims: 50,
      redemptions: 20,
      itemEvents: false,
      eventLog: "incomplete",
      events: 0,
    });
    expect(r.notes.join("\n")).toMatch(/the event log is incomplete/);
    const status = await http(box.sb, "GET", "/status", { control: true });
    expect(status.body).toMatchObject({ eventLog: "incomplete", eventsLeftOut: { items: 70 } });
    // A later call with its events still reports the log as incomplete; a reset makes it complete.
    expect((await simulate(box.sb, { campaign: "scale", claims: 1 })).eventLog).toBe("incomplete");
    await http(box.sb, "POST", "/reset", { control: true, body: {} });
    expect((await http(box.sb, "GET", "/status", { control: true })).body.eventLog).toBe("complete");
  });
});
