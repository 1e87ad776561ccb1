import { beforeEach, describe, expect, it } from "vitest";
import { campaignsGetRun } from "../../src/commands/campaigns/get.js";
import { campaignsListRun } from "../../src/commands/campaigns/list.js";
import { campaignsStatusRun } from "../../src/commands/campaigns/status.js";
import { campaignsUpdateRun } from "../../src/commands/campaigns/update.js";
import type { testContext } from "../helpers/sandbox.js";
import { day } from "./helpers.js";
import { makeCampaign, runFn, scriptedPrompter } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: {} });
});

const run = <T>(fn: (o: T, ctx: any) => Promise<void>, o: T, opts: Parameters<typeof testContext>[1] = {}) =>
  runFn(s, (ctx) => fn(o, ctx), opts);

describe("campaigns get / list", () => {
  it("get accepts the id or the external reference; unknown → exit 5 with a clear message", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "spring" });
    const byId = await run(campaignsGetRun, { idOrRef: c.id }, { globals: { json: true } });
    expect(JSON.parse(byId.stdout).id).toBe(c.id);
    const byRef = await run(campaignsGetRun, { idOrRef: "spring" }, { globals: { json: true } });
    expect(JSON.parse(byRef.stdout).id).toBe(c.id);
    const none = await run(campaignsGetRun, { idOrRef: "nope" });
    expect(none.exitCode).toBe(5);
    expect(none.error).toMatch(/No campaign has the external reference "nope"/);
    const noUuid = await run(campaignsGetRun, { idOrRef: "00000000-0000-4000-8000-000000000000" });
    expect(noUuid.exitCode).toBe(5);
  });

  it("a uuid-shaped external reference is found too", async () => {
    const ref = "11111111-2222-4333-8444-555555555555";
    const c = await makeCampaign(s.sb, { externalReference: ref });
    const r = await run(campaignsGetRun, { idOrRef: ref }, { globals: { json: true } });
    expect(JSON.parse(r.stdout).id).toBe(c.id);
  });

  it("list filters by status and reference; TSV when piped", async () => {
    const a = await makeCampaign(s.sb, { externalReference: "a", name: "A" });
    await makeCampaign(s.sb, { externalReference: "b", name: "B" });
    await s.http("POST", `/campaigns/${a.id}/status`, { body: { status: "active" } });
    const r = await run(campaignsListRun, { status: "active" });
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^id\texternalReference\tname\tstatus/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain("\ta\tA\tactive\t");
    const j = await run(campaignsListRun, { externalReference: "b", all: true }, { globals: { json: true } });
    expect(JSON.parse(j.stdout).map((c: any) => c.name)).toEqual(["B"]);
  });
});

describe("campaigns update", () => {
  it("the same values again: exit 0, 'already had these values; nothing changed'", async () => {
    await makeCampaign(s.sb, { externalReference: "same" });
    const first = await run(campaignsUpdateRun, { idOrRef: "same", name: "Same name", rate: "0.25" });
    expect(first.exitCode).toBe(0);
    expect(first.stderr).toMatch(/^Updated campaign "Same name" \(same\): name, commission\.$/m);
    const again = await run(campaignsUpdateRun, { idOrRef: "same", name: "Same name", rate: "0.25" });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe('Campaign "Same name" (same) already had these values; nothing changed.\n');
  });

  it("sends only the given fields: the others stay (merge semantics)", async () => {
    const c = await makeCampaign(s.sb, {
      externalReference: "upd",
      baseGs1: SEED.offers.sodaRetail,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
    });
    const r = await run(
      campaignsUpdateRun,
      { idOrRef: "upd", through: day(20), rate: "0.2" },
      { globals: { json: true } },
    );
    expect(r.exitCode).toBe(0);
    const u = JSON.parse(r.stdout);
    expect(u.dates).toEqual({ from: c.dates.from, through: day(20) });
    expect(u.commission).toMatchObject({ rate: 0.2, estimatedUnitSalePrice: 4.99 });
    expect(u.name).toBe(c.name);
    expect(u.codes.limit).toBe(100);
    expect(u.retailer).toEqual({ emailDomain: "freshmart.example", name: "FreshMart" });
    const r2 = await run(
      campaignsUpdateRun,
      { idOrRef: "upd", codeLimit: "150", name: "Renamed" },
      { globals: { json: true } },
    );
    expect(JSON.parse(r2.stdout)).toMatchObject({
      name: "Renamed",
      codes: { limit: 150 },
      commission: { rate: 0.2 },
    });
  });

  it("--no-retailer clears the restriction; the domain and name go together", async () => {
    await makeCampaign(s.sb, {
      externalReference: "ret",
      baseGs1: SEED.offers.sodaZero,
      codeLimit: 10,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
    });
    const r = await run(campaignsUpdateRun, { idOrRef: "ret", retailer: false }, { globals: { json: true } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).retailer).toBeNull();
    const half = await run(campaignsUpdateRun, { idOrRef: "ret", retailerDomain: "freshmart.example" });
    expect(half.exitCode).toBe(2);
    expect(half.error).toMatch(/--retailer-name: is needed too/);
    const both = await run(campaignsUpdateRun, {
      idOrRef: "ret",
      retailer: false,
      retailerDomain: "freshmart.example",
      retailerName: "F",
    });
    expect(both.exitCode).toBe(2);
    expect(both.error).toMatch(/--no-retailer: cannot be combined/);
  });

  it("nothing to update, bad values → exit 2 before any request; a service 400 → exit 2 with its details", async () => {
    await makeCampaign(s.sb, { externalReference: "u2" });
    const none = await run(campaignsUpdateRun, { idOrRef: "u2" });
    expect(none.exitCode).toBe(2);
    expect(none.error).toMatch(/Nothing to update/);
    const bad = await run(campaignsUpdateRun, {
      idOrRef: "u2",
      codeLimit: "-3",
      from: "tomorrow",
      unitPrice: "abc",
    });
    expect(bad.exitCode).toBe(2);
    expect(bad.error).toMatch(/--code-limit: must be a whole number/);
    expect(bad.error).toMatch(/--from: must be a calendar day/);
    expect(bad.error).toMatch(/--unit-price: must be an amount in dollars like 4.99 or \$4.99/);
    // What the campaign's current values decide is named by flag too (not dates.through).
    const svc = await run(campaignsUpdateRun, { idOrRef: "u2", through: day(-1000) });
    expect(svc.exitCode).toBe(2);
    expect(svc.error).toMatch(/--through: must be on or after the campaign's first day/);
    expect(svc.error).not.toMatch(/dates\.through/);
    const missing = await run(campaignsUpdateRun, { idOrRef: "missing-ref", name: "x" });
    expect(missing.exitCode).toBe(5);
  });
});

describe("campaigns activate | pause | end", () => {
  it("each transition, same-status no-ops (exit 0) and refusals (exit 6 with the API message)", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "st" });
    const pauseDraft = await run(campaignsStatusRun, { idOrRef: "st", status: "paused" as const });
    expect(pauseDraft.exitCode).toBe(6);
    expect(pauseDraft.error).toMatch(/A draft campaign cannot become paused/);
    expect(pauseDraft.error).toMatch(/From draft it can go to: active, ended/);

    const act = await run(campaignsStatusRun, { idOrRef: "st", status: "active" as const });
    expect(act.exitCode).toBe(0);
    expect(act.stderr).toMatch(/Activated campaign .*draft → active/);
    expect(act.stdout).toMatch(/^status\tactive$/m);

    const again = await run(campaignsStatusRun, { idOrRef: c.id, status: "active" as const });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toMatch(/already active; nothing changed/);

    const pause = await run(campaignsStatusRun, { idOrRef: "st", status: "paused" as const });
    expect(pause.exitCode).toBe(0);
    expect(pause.stdout).toMatch(/^status\tpaused$/m);
    const resume = await run(campaignsStatusRun, { idOrRef: "st", status: "active" as const });
    expect(resume.stdout).toMatch(/^status\tactive$/m);

    const end = await run(
      campaignsStatusRun,
      { idOrRef: "st", status: "ended" as const },
      { globals: { yes: true } },
    );
    expect(end.exitCode).toBe(0);
    expect(end.stdout).toMatch(/^status\tended$/m);
    const endAgain = await run(campaignsStatusRun, { idOrRef: "st", status: "ended" as const });
    expect(endAgain.exitCode).toBe(0);
    expect(endAgain.stderr).toMatch(/already ended/);
    const reopen = await run(campaignsStatusRun, { idOrRef: "st", status: "active" as const });
    expect(reopen.exitCode).toBe(6);
    expect(reopen.error).toMatch(/ended is final/);
  });

  it("end is refused without a terminal and without --yes (exit 2), asks on a terminal", async () => {
    await makeCampaign(s.sb, { externalReference: "e" });
    const refused = await run(campaignsStatusRun, { idOrRef: "e", status: "ended" as const });
    expect(refused.exitCode).toBe(2);
    expect(refused.error).toMatch(/refusing without confirmation/);
    expect(refused.error).toContain("partner-cli campaigns end e --yes");

    const no = scriptedPrompter([{ match: /End campaign .*final/, answer: false }]);
    const declined = await run(
      campaignsStatusRun,
      { idOrRef: "e", status: "ended" as const },
      { tty: true, prompter: no },
    );
    expect(declined.exitCode).toBe(2);
    expect((await s.http("GET", "/campaigns?externalReference=e")).body.items[0].status).toBe("draft");

    const yes = scriptedPrompter([{ match: /End campaign/, answer: true }]);
    const ended = await run(
      campaignsStatusRun,
      { idOrRef: "e", status: "ended" as const },
      { tty: true, prompter: yes },
    );
    expect(ended.exitCode).toBe(0);
    expect((await s.http("GET", "/campaigns?externalReference=e")).body.items[0].status).toBe("ended");
  });

  it("a status change whose answer is a 500 is read back, not blindly repeated", async () => {
    await makeCampaign(s.sb, { externalReference: "s500" });
    await s.http("POST", "/faults", {
      control: true,
      body: { next: ["500"], pathPrefix: "/campaigns/", method: "POST" },
    });
    const r = await run(campaignsStatusRun, { idOrRef: "s500", status: "active" as const });
    await s.http("POST", "/faults", { control: true, body: { next: [], pathPrefix: null, method: null } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^status\tactive$/m);
    const events = await s.http("GET", "/events?type=campaign.status_changed");
    expect(events.body.items).toHaveLength(1);
  });
});
