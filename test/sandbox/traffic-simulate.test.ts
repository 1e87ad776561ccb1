// POST /_sandbox/simulate: claims, test codes, redemptions, corrections, their events and counters.
import { beforeAll, describe, expect, it } from "vitest";
import { strictRedemptions } from "../../src/spec/redemptions.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { expectError } from "./core-util.js";
import { events, feedAll } from "./traffic-util.js";
import { expectStampedBetween, getCampaign, makeCampaign, simulate, TRAFFIC } from "../helpers/fixtures.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

describe("simulate: codes, redemptions and their events", () => {
  const s = useSandbox();
  let c: { id: string };
  beforeAll(async () => {
    c = await makeCampaign(s.sb, { ...TRAFFIC, externalReference: "sim-1" });
  });

  it("claims codes through active links and emits code.issued", async () => {
    const before = await getCampaign(s.sb, c.id);
    expect(before.canChangeRetailer).toBe(true);
    const r = await simulate(s.sb, { campaign: "sim-1", claims: 12, seed: 7 });
    expect(r).toMatchObject({ claims: 12, redemptions: 0, itemEvents: true });
    const after = await getCampaign(s.sb, c.id);
    expect(after.codes).toMatchObject({ issued: 12, testCodes: 0, redeemed: 0, remaining: 100_000 - 12 });
    expect(after.canChangeRetailer).toBe(false);
    const issued = await events(s.sb, "code.issued");
    expect(issued).toHaveLength(12);
    for (const e of issued) {
      const d = strictRedemptions.CodeIssuedData.parse(e.data);
      expect(d.campaign.id).toBe(c.id);
      expect(["cr-0001", "cr-0002", "cr-0003"]).toContain(d.creator.externalId);
      expect(Date.parse(d.issuedAt)).toBeLessThanOrEqual(s.sb.sandbox.clock.nowMs());
    }
    expect(new Set(issued.map((e) => e.data.claimId)).size).toBe(12);
  });

  it("records redemptions of issued codes with redemption.recorded snapshots", async () => {
    const r = await simulate(s.sb, { campaign: c.id, redemptions: 5, seed: 8 });
    expect(r.redemptions).toBe(5);
    const rec = await events(s.sb, "redemption.recorded");
    expect(rec).toHaveLength(5);
    const feed = await feedAll(s.sb);
    expect(feed).toHaveLength(5);
    for (const e of rec) {
      const d = strictRedemptions.RedemptionRecordedData.parse(e.data);
      expect(d.countingState).toBe("counted");
      expect(d.exclusion).toBeNull();
      expect(Date.parse(d.recordedAt)).toBeGreaterThan(Date.parse(d.redeemedAt));
      expect(feed.find((x) => x.id === d.id)).toEqual(d);
    }
    expect((await getCampaign(s.sb, c.id)).codes.redeemed).toBe(5);
  });

  it("staff test codes and their redemptions emit nothing and count nowhere", async () => {
    const evBefore = (await events(s.sb)).length;
    const r = await simulate(s.sb, { campaign: c.id, testCodes: 3, testRedemptions: 2 });
    expect(r).toMatchObject({ testCodes: 3, testRedemptions: 2 });
    expect((await events(s.sb)).length).toBe(evBefore);
    const camp = await getCampaign(s.sb, c.id);
    expect(camp.codes).toMatchObject({ issued: 12, testCodes: 3, redeemed: 5, remaining: 100_000 - 15 });
    const tests = (await feedAll(s.sb)).filter((x) => x.countingState === "test_code");
    expect(tests).toHaveLength(2);
    for (const t of tests) {
      expect(t.creator).toBeNull();
      expect(t.exclusion).toBeNull();
    }
  });

  it("excludes and restores with reasons and correction events; excluded wins over test_code", async () => {
    const feed = await feedAll(s.sb);
    const counted = feed.find((x) => x.countingState === "counted")!;
    const test = feed.find((x) => x.countingState === "test_code")!;
    const clock = s.sb.sandbox.clock;
    const t0 = clock.iso();
    const r = await simulate(s.sb, { exclude: [counted.id, test.id], reason: "Duplicate receipt" });
    const t1 = clock.iso();
    expect(r.exclusions).toBe(2);
    const one = (await s.http("GET", `/redemptions/${counted.id}`)).body;
    expect(one.countingState).toBe("excluded");
    expect(one.exclusion).toEqual({ excludedAt: one.exclusion.excludedAt, reason: "Duplicate receipt" });
    expectStampedBetween(one.exclusion.excludedAt, t0, t1);
    expect(one.recordedAt).toBe(counted.recordedAt);
    const t = (await s.http("GET", `/redemptions/${test.id}`)).body;
    expect(t.countingState).toBe("excluded");
    expect(t.exclusion.reason).toBe("Duplicate receipt");
    expect((await getCampaign(s.sb, c.id)).codes.redeemed).toBe(4);
    const ex = await events(s.sb, "redemption.excluded");
    expect(ex).toHaveLength(1); // the test-code redemption's exclusion emits nothing
    const d = strictRedemptions.RedemptionExcludedData.parse(ex[0].data);
    expect(d).toMatchObject({
      redemptionId: counted.id,
      reason: "Duplicate receipt",
      creator: counted.creator,
    });
    expect(d.campaign.id).toBe(c.id);

    // Feed positions never change on correction.
    expect((await feedAll(s.sb)).map((x) => x.id)).toEqual(feed.map((x) => x.id));

    const t2 = clock.iso();
    const rs = await simulate(s.sb, { restore: [counted.id, test.id], reason: "Receipt checked" });
    const t3 = clock.iso();
    expect(rs.restorations).toBe(2);
    expect((await s.http("GET", `/redemptions/${counted.id}`)).body).toMatchObject({
      countingState: "counted",
      exclusion: null,
    });
    expect((await s.http("GET", `/redemptions/${test.id}`)).body.countingState).toBe("test_code");
    const restored = await events(s.sb, "redemption.restored");
    expect(restored).toHaveLength(1);
    const back = strictRedemptions.RedemptionRestoredData.parse(restored[0].data);
    expect(back).toMatchObject({ redemptionId: counted.id, reason: "Receipt checked" });
    expectStampedBetween(back.restoredAt, t2, t3);
    expect((await getCampaign(s.sb, c.id)).codes.redeemed).toBe(5);
  });

  it("picks random exclusions and restorations by count; null reason allowed", async () => {
    const r = await simulate(s.sb, { campaign: c.id, exclusions: 2, reason: null });
    expect(r.exclusions).toBe(2);
    const excluded = (await feedAll(s.sb)).filter((x) => x.countingState === "excluded");
    expect(excluded).toHaveLength(2);
    for (const x of excluded) expect(x.exclusion.reason).toBeNull();
    const r2 = await simulate(s.sb, { campaign: c.id, restorations: 5 });
    expect(r2.restorations).toBe(2);
    expect(r2.notes.join(" ")).toMatch(/2 of 5 restorations/);
  });

  it("does not hand out codes for a paused campaign or through paused links", async () => {
    await s.http("PATCH", `/campaigns/${c.id}/creators/cr-0001`, { body: { active: false } });
    await simulate(s.sb, { campaign: c.id, claims: 30, seed: 3 });
    const issued = (await events(s.sb, "code.issued")).slice(12);
    expect(issued).toHaveLength(30);
    expect(issued.every((e) => e.data.creator.externalId !== "cr-0001")).toBe(true);
    await s.http("POST", `/campaigns/${c.id}/status`, { body: { status: "paused" } });
    const r = await simulate(s.sb, { campaign: c.id, claims: 5, redemptions: 3 });
    expect(r.claims).toBe(0);
    expect(r.notes.join(" ")).toMatch(/paused/);
    // Handed-out codes still work and count.
    expect(r.redemptions).toBe(3);
    await s.http("POST", `/campaigns/${c.id}/status`, { body: { status: "active" } });
  });

  it("hands out no codes on a view-only campaign; its codes still redeem", async () => {
    const v = await makeCampaign(s.sb, {
      ...TRAFFIC,
      baseGs1: SEED.offers.sodaRetail,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
      codeLimit: 10,
      creators: ["cr-0006"],
    });
    await simulate(s.sb, { campaign: v.id, claims: 2 });
    const brandId = (await getCampaign(s.sb, v.id)).offer.brand.id;
    await s.http("POST", `/brands/${brandId}/access`, { control: true, body: { access: false } });
    const r = await simulate(s.sb, { campaign: v.id, claims: 2, testCodes: 1, redemptions: 1 });
    expect(r).toMatchObject({ claims: 0, testCodes: 0, redemptions: 1 });
    expect(r.notes.join(" ")).toMatch(/lost access/);
    await s.http("POST", `/brands/${brandId}/access`, { control: true, body: { access: true } });
    await s.http("POST", `/campaigns/${v.id}/status`, { body: { status: "ended" } });
  });

  it("by default covers every active campaign and splits the counts", async () => {
    const d = await makeCampaign(s.sb, { ...TRAFFIC, creators: ["cr-0004"] });
    await makeCampaign(s.sb, { ...TRAFFIC, status: "draft", creators: ["cr-0005"] });
    const r = await simulate(s.sb, { claims: 10 });
    expect(r.campaigns.map((x: { id: string }) => x.id).sort()).toEqual([c.id, d.id].sort());
    expect(r.claims).toBe(10);
    expect((await getCampaign(s.sb, d.id)).codes.issued).toBe(5);
  });

  it("refuses a bad body and an unknown campaign or redemption", async () => {
    expectError(
      await s.http("POST", "/simulate", { control: true, body: { claims: -1 } }),
      400,
      "validation_failed",
      ["claims"],
    );
    expectError(
      await s.http("POST", "/simulate", { control: true, body: { bogus: 1 } }),
      400,
      "validation_failed",
    );
    expectError(
      await s.http("POST", "/simulate", { control: true, body: { at: "2020-01-01T00:00:00Z", days: 2 } }),
      400,
      "validation_failed",
      ["at"],
    );
    expectError(
      await s.http("POST", "/simulate", { control: true, body: { at: "2999-01-01T00:00:00Z" } }),
      400,
      "validation_failed",
      ["at"],
    );
    expectError(
      await s.http("POST", "/simulate", { control: true, body: { campaign: "nope" } }),
      404,
      "not_found",
    );
    expectError(
      await s.http("POST", "/simulate", {
        control: true,
        body: { exclude: ["00000000-0000-4000-8000-000000000000"] },
      }),
      404,
      "not_found",
    );
    // Another organization's campaign is not found either.
    expectError(
      await s.http("POST", "/simulate", {
        control: true,
        body: { campaign: c.id },
        key: s.sb.testKeys.otherOrgKey,
      }),
      404,
      "not_found",
    );
  });
});

describe("simulate: restorations of exclusions made by the same call", () => {
  it("exclusions and restorations in one call: restorations may pick this call's exclusions", async () => {
    await withSandbox({}, async ({ sb }) => {
      const c = await makeCampaign(sb, { ...TRAFFIC, externalReference: "same-call" });
      expect((await simulate(sb, { campaign: c.id, redemptions: 4, seed: 5 })).redemptions).toBe(4);
      const r = await simulate(sb, { campaign: "same-call", exclusions: 3, restorations: 2, seed: 6 });
      expect(r).toMatchObject({ exclusions: 3, restorations: 2, notes: [] });
      const feed = await feedAll(sb);
      expect(feed.filter((x) => x.countingState === "excluded")).toHaveLength(1);
      expect(feed.filter((x) => x.countingState === "counted")).toHaveLength(3);
      const excluded = await events(sb, "redemption.excluded");
      const restored = await events(sb, "redemption.restored");
      expect(excluded).toHaveLength(3);
      expect(restored).toHaveLength(2);
      // Each restored redemption was excluded by this call.
      const ex = new Set(excluded.map((e) => e.data.redemptionId));
      for (const e of restored) expect(ex.has(e.data.redemptionId)).toBe(true);
      expect((await getCampaign(sb, c.id)).codes.redeemed).toBe(3);
      // Restorations beyond every exclusion: a note, and no more than were excluded.
      const more = await simulate(sb, { campaign: c.id, exclusions: 1, restorations: 5 });
      expect(more).toMatchObject({ exclusions: 1, restorations: 2 });
      expect(more.notes.join(" ")).toMatch(/2 of 5 restorations/);
    });
  });
});

describe("simulate: reproducible, persistent, bulk without events", () => {
  it("same seed, same traffic; state survives a restart", async () => {
    const dir = tempDir("h7-persist-");
    const runs: string[][] = [];
    for (let k = 0; k < 2; k++) {
      const feed = await withSandbox({ dataDir: k === 0 ? dir : undefined }, async ({ sb }) => {
        await makeCampaign(sb, { ...TRAFFIC, externalReference: "seeded" });
        await simulate(sb, { claims: 40, redemptions: 20, days: 5, seed: "fixed" });
        return feedAll(sb);
      });
      runs.push(feed.map((x) => `${x.creator.externalId} ${x.serializedGs1}`));
      if (k === 0) {
        await withSandbox({ dataDir: dir }, async ({ sb: again }) => {
          const reloaded = await feedAll(again);
          expect(reloaded).toEqual(feed);
          const one = await http(again, "GET", `/redemptions/${feed[3].id}`);
          expect(one.body).toEqual(feed[3]);
        });
      }
    }
    expect(runs[1]).toEqual(runs[0]);
  });

  it("more than 10,000 items still emit every per-item event; events: false leaves them out", async () => {
    await withSandbox({}, async ({ sb }) => {
      const c = await makeCampaign(sb, TRAFFIC);
      const r = await simulate(sb, { campaign: c.id, claims: 12_000, redemptions: 11_000 });
      expect(r).toMatchObject({ claims: 12_000, redemptions: 11_000, itemEvents: true, events: 23_000 });
      const traffic = async () =>
        (await events(sb)).filter((e) => e.type.startsWith("redemption.") || e.type === "code.issued");
      expect(await traffic()).toHaveLength(23_000);
      const r2 = await simulate(sb, { campaign: c.id, claims: 2, events: false });
      expect(r2).toMatchObject({ itemEvents: false, eventLog: "incomplete" });
      expect(await traffic()).toHaveLength(23_000);
      const r3 = await simulate(sb, { campaign: c.id, redemptions: 2 });
      expect(r3.itemEvents).toBe(true);
      expect(await traffic()).toHaveLength(23_002);
    });
  });
});

describe("simulate: supply alerts", () => {
  it("emits supply_low once per incident and supply_exhausted when none remains", async () => {
    await withSandbox({}, async ({ sb }) => {
      const c = await makeCampaign(sb, { ...TRAFFIC, baseGs1: SEED.offers.oats, codeLimit: 20 });
      // threshold ceil(10% of 20) = 2: 17 → remaining 3 (no alert), 18 → 2 (low)
      await simulate(sb, { campaign: c.id, claims: 17 });
      expect(await events(sb, "campaign.supply_low")).toHaveLength(0);
      await simulate(sb, { campaign: c.id, testCodes: 1 });
      const low = await events(sb, "campaign.supply_low");
      expect(low).toHaveLength(1);
      expect(strictRedemptions.SupplyData.parse(low[0].data)).toEqual({
        campaign: { id: c.id, externalReference: null, name: "Traffic test" },
        codes: { limit: 20, issued: 18, remaining: 2 },
      });
      await simulate(sb, { campaign: c.id, claims: 1 });
      expect(await events(sb, "campaign.supply_low")).toHaveLength(1); // once per incident
      const r = await simulate(sb, { campaign: c.id, claims: 5 });
      expect(r.claims).toBe(1);
      const ex = await events(sb, "campaign.supply_exhausted");
      expect(ex).toHaveLength(1);
      expect(ex[0].data.codes).toEqual({ limit: 20, issued: 20, remaining: 0 });
      await simulate(sb, { campaign: c.id, claims: 1 });
      expect(await events(sb, "campaign.supply_exhausted")).toHaveLength(1);
      // The offer's shared supply was drawn from.
      const offer = await http(sb, "GET", `/offers/${SEED.offers.oats}`);
      expect(offer.body.codesAvailable).toBe(50_000 - 20);
      // A raised limit ends the incident; a new drop alerts again.
      const p = await http(sb, "PATCH", `/campaigns/${c.id}`, { body: { codeLimit: 40 } });
      expect(p.status).toBe(200);
      await simulate(sb, { campaign: c.id, claims: 17 });
      expect(await events(sb, "campaign.supply_low")).toHaveLength(2);
    });
  });

  it("emits no supply events without alert recipients", async () => {
    await withSandbox({}, async ({ sb }) => {
      const res = await http(sb, "POST", "/organization", { control: true, body: { alertRecipients: [] } });
      expect(res.status).toBe(200);
      const c = await makeCampaign(sb, { ...TRAFFIC, codeLimit: 2 });
      await simulate(sb, { campaign: c.id, claims: 2 });
      expect((await getCampaign(sb, c.id)).codes.remaining).toBe(0);
      expect(await events(sb, "campaign.supply_exhausted")).toHaveLength(0);
    });
  });
});
