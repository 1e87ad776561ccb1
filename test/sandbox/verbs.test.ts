// Every control a tester needs is a verb: `partner-cli sandbox status | clock | brand-access | offer |
// supply-alerts | time-zone | fail-next-job | view | faults` (in-process runs of the whole program
// against a sandbox on port 0, then what the sandbox holds), `api` reaching /_sandbox on a sandbox
// and refusing it for any other target, and one end-to-end run of the built CLI.
import { beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../src/sandbox/seed.js";
import { makeCampaign, TRAFFIC } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { tempDir } from "../helpers/sandbox.js";

const s = useSandbox();
let env: NodeJS.ProcessEnv;
let campaignId: string;
let oatsBrandId: string;
beforeAll(async () => {
  env = s.env({}, { configDir: tempDir() });
  campaignId = (await makeCampaign(s.sb, { ...TRAFFIC, externalReference: "verbs-oats" })).id;
  oatsBrandId = (await s.http("GET", `/offers/${SEED.offers.oats}`)).body.brand.id;
});

const run = (args: string[], more: NodeJS.ProcessEnv = {}) =>
  s.run(["sandbox", ...args], { env: { ...env, ...more } });
const campaign = async () => (await s.http("GET", `/campaigns/${campaignId}`)).body;
const offer = async (gs1: string) => (await s.http("GET", `/offers/${gs1}`)).body;

describe("sandbox clock", () => {
  it("prints the sandbox time and offset, which advance moves", async () => {
    const before = (await run(["clock", "--json"])).json();
    expect(before.offsetMs).toBe(0);
    expect((await run(["advance", "90s"])).exitCode).toBe(0);
    const r = await run(["clock"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^offsetMs\t90000$/m);
    expect(r.stdout).toMatch(/^now\t\d{4}-\d{2}-\d{2}T/m);
  });
});

describe("sandbox status", () => {
  it("says where the state is and whether the event log is complete; --no-events makes it incomplete", async () => {
    const first = await run(["status"]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^eventLog\tcomplete$/m);
    expect(first.stdout).toMatch(/^eventsLeftOut\tnone$/m);
    expect(first.stdout).toMatch(/^store\t:memory:$/m);
    expect(first.stderr).toBe("");
    const sim = await run(["simulate", "--campaign", campaignId, "--claims", "12", "--no-events"]);
    expect(sim.exitCode, sim.stderr).toBe(0);
    const after = await run(["status", "--json"]);
    expect(after.json()).toMatchObject({ eventLog: "incomplete", eventsLeftOut: { items: 12 } });
    expect(after.stderr).toContain("The event log is incomplete: a simulate ran with --no-events.");
  });
});

describe("sandbox brand-access", () => {
  it("lost makes the brand's campaigns view-only (409 on every change); restored undoes it", async () => {
    const r = await run(["brand-access", SEED.brands.oats, "lost"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`brandId\t${oatsBrandId}\nbrand\t${SEED.brands.oats}\naccess\tlost\n`);
    expect(r.stderr).toContain("view-only now");
    expect((await campaign()).allowedStatuses).toEqual([]);
    const change = await s.http("PATCH", `/campaigns/${campaignId}`, { body: { name: "Renamed" } });
    expect(change.status).toBe(409);
    expect((await campaign()).name).toBe(TRAFFIC.name);

    const back = await run(["brand-access", oatsBrandId, "restored", "--json"]);
    expect(back.exitCode).toBe(0);
    expect(back.json()).toMatchObject({ brand: { id: oatsBrandId }, access: "restored" });
    expect((await campaign()).allowedStatuses).toEqual(["paused", "ended"]);
  });

  it("an unknown brand is exit 5 and changes nothing; a bad access word is exit 2", async () => {
    const r = await run(["brand-access", "No Such Brand", "lost"]);
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('BRAND "No Such Brand" matches no brand');
    expect((await campaign()).allowedStatuses).toEqual(["paused", "ended"]);
    const bad = await run(["brand-access", SEED.brands.oats, "gone"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      "value 'gone' is invalid for argument 'access'. Allowed choices are lost, restored.",
    );
  });
});

describe("sandbox offer", () => {
  it("changes the state (canDistribute follows) and the codes available", async () => {
    const r = await run(["offer", SEED.offers.sodaZero, "--state", "temporarily_unavailable"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^state\ttemporarily_unavailable\ncanDistribute\tno$/m);
    expect(await offer(SEED.offers.sodaZero)).toMatchObject({
      state: "temporarily_unavailable",
      canDistribute: false,
    });
    const back = await run(["offer", SEED.offers.sodaZero, "--state", "available", "--codes-available", "7"]);
    expect(back.exitCode).toBe(0);
    expect(await offer(SEED.offers.sodaZero)).toMatchObject({
      state: "available",
      canDistribute: true,
      codesAvailable: 7,
    });
    expect((await run(["offer", SEED.offers.sodaZero, "--codes-available", "unknown"])).exitCode).toBe(0);
    expect((await offer(SEED.offers.sodaZero)).codesAvailable).toBeNull();
  });

  it("nothing to change, a bad count or state: exit 2, the offer unchanged; an unknown offer: exit 5", async () => {
    const before = await offer(SEED.offers.oats);
    const none = await run(["offer", SEED.offers.oats]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain(
      "Say what to change: --state STATE and/or --codes-available N. Nothing was changed.",
    );
    const count = await run(["offer", SEED.offers.oats, "--codes-available", "-4"]);
    expect(count.exitCode).toBe(2);
    expect(count.stderr).toContain('--codes-available "-4" is not a whole number of codes or "unknown".');
    expect((await run(["offer", SEED.offers.oats, "--state", "paused"])).exitCode).toBe(2);
    expect(await offer(SEED.offers.oats)).toEqual(before);
    const missing = await run(["offer", "0000000000000", "--state", "expired"]);
    expect(missing.exitCode).toBe(5);
  });
});

describe("sandbox supply-alerts and time-zone", () => {
  it("sets, prints and clears the alert recipients; --off with --recipients is exit 2", async () => {
    const set = await run(["supply-alerts", "--recipients", "a@x.example, b@x.example"]);
    expect(set.exitCode).toBe(0);
    expect(set.stdout).toMatch(/^alertRecipients\ta@x\.example, b@x\.example$/m);
    expect((await run(["supply-alerts", "--json"])).json().alertRecipients).toEqual([
      "a@x.example",
      "b@x.example",
    ]);
    const both = await run(["supply-alerts", "--off", "--recipients", "c@x.example"]);
    expect(both.exitCode).toBe(2);
    expect((await run(["supply-alerts", "--json"])).json().alertRecipients).toHaveLength(2);
    const off = await run(["supply-alerts", "--off"]);
    expect(off.exitCode).toBe(0);
    expect(off.stderr).toContain("no campaign.supply_low or supply_exhausted events");
    expect((await run(["supply-alerts", "--json"])).json().alertRecipients).toEqual([]);
    await run(["supply-alerts", "--recipients", "ops@northwind.example"]);
  });

  it("time-zone sets the reporting time zone (GET /me shows it); an unknown zone is exit 2", async () => {
    const r = await run(["time-zone", "Europe/Berlin"]);
    expect(r.exitCode).toBe(0);
    expect((await s.http("GET", "/me")).body.organization.reportingTimeZone).toBe("Europe/Berlin");
    const bad = await run(["time-zone", "Mars/Olympus"]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("Mars/Olympus is not an IANA time-zone name.");
    expect((await s.http("GET", "/me")).body.organization.reportingTimeZone).toBe("Europe/Berlin");
    await run(["time-zone", "America/New_York"]);
  });
});

describe("sandbox fail-next-job", () => {
  it("the next job queued for the campaign fails; --off takes it back", async () => {
    const r = await run(["fail-next-job", "verbs-oats"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`campaignId\t${campaignId}\nfailNextJob\tyes\n`);
    const off = await run(["fail-next-job", campaignId, "--off", "--json"]);
    expect(off.json()).toEqual({ campaignId, failNextJob: false });
    await run(["fail-next-job", "verbs-oats"]);
    const q = await s.http("POST", `/campaigns/${campaignId}/assignments`, { body: { scope: "roster" } });
    expect(q.status).toBe(202);
    let job = q.body.job;
    for (let i = 0; i < 400 && job.status !== "failed" && job.status !== "completed"; i++) {
      await s.http("POST", "/advance", { control: true, body: { duration: "1m" } });
      job = (await s.http("GET", `/campaigns/${campaignId}/assignments/${job.id}`)).body;
    }
    expect(job.status).toBe("failed");
    expect((await run(["fail-next-job", "no-such-ref"])).exitCode).toBe(5);
  });
});

describe("sandbox view", () => {
  it("counts a link open in the campaign report's linkViews", async () => {
    const link = (await s.http("GET", `/campaigns/${campaignId}/creators/cr-0001`)).body;
    const views = async () =>
      (await s.http("GET", `/campaigns/${campaignId}/report?preset=today`)).body.totals.linkViews as number;
    const before = await views();
    const r = await run(["view", link.shortCode, "--origin", "203.0.113.9"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^externalId\tcr-0001$/m);
    expect(await views()).toBe(before + 1);
    expect((await run(["view", "ZZZZ-ZZZZ"])).exitCode).toBe(5);
  });
});

describe("sandbox faults", () => {
  it("sets the next faults for a path, prints them, and --clear goes back", async () => {
    const r = await run(["faults", "--next", "502", "--path-prefix", "/me", "--latency", "5", "--json"]);
    expect(r.exitCode).toBe(0);
    expect(r.json()).toMatchObject({ next: ["502"], pathPrefix: "/me", latencyMs: 5 });
    expect((await s.http("GET", "/creators")).status).toBe(200);
    expect((await s.http("GET", "/me")).status).toBe(502);
    expect((await s.http("GET", "/me")).status).toBe(200);
    const feed = await run(["faults", "--feed-fault", "events:cursor-loop@200"]);
    expect(feed.stdout).toMatch(/^feedFault\tevents:cursor-loop@200$/m);
    const shown = await run(["faults"]);
    expect(shown.stdout).toMatch(/^latencyMs\t5$/m);
    const cleared = await run(["faults", "--clear", "--json"]);
    expect(cleared.json()).toMatchObject({ latencyMs: 0, next: [], rates: {} });
    expect(cleared.json().feed).toBeUndefined();
  });

  it("refuses a bad fault kind or feed fault spec: exit 2, the settings unchanged", async () => {
    for (const args of [
      ["--next", "503"],
      ["--rates", "429=2"],
      ["--feed-fault", "events:loop@1"],
    ]) {
      const r = await run(["faults", ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain("Nothing was changed.");
    }
    expect((await s.http("GET", "/faults", { control: true })).body).toMatchObject({ next: [], rates: {} });
  });
});

describe("api and /_sandbox", () => {
  it("reaches the control routes of a sandbox (its key says so)", async () => {
    const r = await s.run(["api", "GET", "/_sandbox/clock"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.json()).toHaveProperty("offsetMs");
    const post = await s.run(
      ["api", "POST", "_sandbox/offers/" + SEED.offers.sodaZero, "-F", "codesAvailable=3"],
      {
        env,
      },
    );
    expect(post.exitCode).toBe(0);
    expect((await offer(SEED.offers.sodaZero)).codesAvailable).toBe(3);
  });

  it("refuses them when the target's key is not a sandbox key: exit 2, nothing sent", async () => {
    const before = (await s.http("GET", "/clock", { control: true })).body.offsetMs;
    const r = await s.run(["api", "POST", "/_sandbox/advance", "-F", "duration=1h"], {
      env: { ...env, PARTNER_API_KEY: "pk_live_not-a-sandbox-key" },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("/_sandbox paths are the control routes of a partner-cli sandbox");
    expect(r.stderr).toContain("Nothing was sent.");
    expect((await s.http("GET", "/clock", { control: true })).body.offsetMs).toBe(before);
  });
});

describe("end to end (the built CLI)", () => {
  it("brand-access lost then restored, as a spawned partner-cli", async () => {
    const lost = await s.cli(["sandbox", "brand-access", SEED.brands.oats, "lost", "--json"]);
    expect(lost.exitCode).toBe(0);
    expect(lost.json()).toMatchObject({ access: "lost" });
    expect((await campaign()).allowedStatuses).toEqual([]);
    const pause = await s.cli(["campaigns", "pause", "verbs-oats"]);
    expect(pause.exitCode).toBe(6);
    const back = await s.cli(["sandbox", "brand-access", SEED.brands.oats, "restored"]);
    expect(back.exitCode).toBe(0);
    expect((await campaign()).status).toBe("active");
  });
});
