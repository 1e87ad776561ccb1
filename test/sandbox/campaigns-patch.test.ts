// PATCH /campaigns/{id}: rules 1-6 (merge semantics, codeLimit raise/lower, retailer, immutables).
import { describe, expect, it } from "vitest";
import { type Campaign, strictCampaigns } from "../../src/spec/campaigns.js";
import { expectError, strict } from "./core-util.js";
import { eventsOf, handOut, offer, setStatus, shift } from "./campaigns-fixtures.js";
import { getCampaign, makeCampaign } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

const patch = (id: string, body: unknown) => s.http("PATCH", `/campaigns/${id}`, { body });
const patchOk = async (id: string, body: unknown): Promise<Campaign> =>
  strict(strictCampaigns.Campaign, await patch(id, body));
const advance = (duration: string) => s.http("POST", "/advance", { control: true, body: { duration } });

describe("PATCH merge semantics (rules 1, 4, 5)", () => {
  it("absent or null keeps; only sent fields change; no event; updatedAt moves only on change", async () => {
    const c = await makeCampaign(s.sb, {
      name: "Before",
      commission: { rate: 0.2, estimatedUnitSalePrice: 5 },
    });
    const events = eventsOf(s.sb, "campaign.status_changed").length;
    await advance("1m");
    const same = await patchOk(c.id, {});
    expect(same).toEqual(c);
    const nulls = await patchOk(c.id, { name: null, dates: null, codeLimit: null, commission: null });
    expect(nulls).toEqual(c);
    const renamed = await patchOk(c.id, { name: " After " });
    expect(renamed.name).toBe("After");
    expect(renamed.updatedAt > c.updatedAt).toBe(true);
    expect({ ...renamed, name: c.name, updatedAt: c.updatedAt }).toEqual(c);
    // sending the same value again is no change
    await advance("1m");
    expect((await patchOk(c.id, { name: "After" })).updatedAt).toBe(renamed.updatedAt);
    expect(eventsOf(s.sb, "campaign.status_changed").length).toBe(events);
  });

  it("dates merge per nested field; omitted or null nested fields keep", async () => {
    const c = await makeCampaign(s.sb);
    const through = shift(c.dates.through, 3);
    const a = await patchOk(c.id, { dates: { through } });
    expect(a.dates).toEqual({ from: c.dates.from, through });
    const b = await patchOk(c.id, { dates: { from: shift(c.dates.from, 1), through: null } });
    expect(b.dates).toEqual({ from: shift(c.dates.from, 1), through });
  });

  it("dates stay inside the offer's redemption dates and in order", async () => {
    const c = await makeCampaign(s.sb);
    const o = await offer(s.sb, SEED.offers.oats);
    expectError(
      await patch(c.id, { dates: { through: shift(o.redemptionDates!.through, 1) } }),
      400,
      "validation_failed",
      ["dates.through"],
    );
    expectError(
      await patch(c.id, { dates: { from: shift(o.redemptionDates!.from, -1) } }),
      400,
      "validation_failed",
      ["dates.from"],
    );
    // from after the kept through
    expectError(await patch(c.id, { dates: { from: shift(c.dates.through, 1) } }), 400, "validation_failed", [
      "dates.from",
    ]);
    expectError(
      await patch(c.id, { dates: { through: shift(c.dates.from, -1) } }),
      400,
      "validation_failed",
      ["dates.through"],
    );
    expectError(await patch(c.id, { dates: { from: "2026-13-01" } }), 400, "validation_failed", [
      "dates.from",
    ]);
    expectError(await patch(c.id, { dates: "soon" }), 400, "validation_failed", ["dates"]);
    expect(await getCampaign(s.sb, c.id)).toEqual(c);
  });

  it("commission merges per nested field and recomputes estimatedPerRedemption", async () => {
    const c = await makeCampaign(s.sb, { commission: { rate: 0.1, estimatedUnitSalePrice: 10 } });
    const a = await patchOk(c.id, { commission: { rate: "0.25" } });
    expect(a.commission).toEqual({ rate: 0.25, estimatedUnitSalePrice: 10, estimatedPerRedemption: 2.5 });
    const b = await patchOk(c.id, { commission: { rate: null, estimatedUnitSalePrice: 3.33 } });
    expect(b.commission).toEqual({
      rate: 0.25,
      estimatedUnitSalePrice: 3.33,
      estimatedPerRedemption: 0.8325,
    });
    expectError(await patch(c.id, { commission: { rate: 0.00001 } }), 400, "validation_failed", [
      "commission.rate",
    ]);
    expectError(
      await patch(c.id, { commission: { estimatedUnitSalePrice: 100000.5 } }),
      400,
      "validation_failed",
      ["commission.estimatedUnitSalePrice"],
    );
  });

  it("name rules apply on PATCH", async () => {
    const c = await makeCampaign(s.sb);
    expectError(await patch(c.id, { name: "two\nlines" }), 400, "validation_failed", ["name"]);
    expectError(await patch(c.id, { name: "" }), 400, "validation_failed", ["name"]);
    expectError(await patch(c.id, { name: "n".repeat(121) }), 400, "validation_failed", ["name"]);
  });

  it("non-object bodies are refused", async () => {
    const c = await makeCampaign(s.sb);
    expectError(await patch(c.id, [1]), 400, "validation_failed");
    expectError(await patch(c.id, "x"), 400, "validation_failed");
  });
});

describe("immutable fields (rule 6)", () => {
  it("baseGs1 and externalReference cannot be changed → 400", async () => {
    const c = await makeCampaign(s.sb, { externalReference: "immutable-1" });
    expectError(await patch(c.id, { baseGs1: SEED.offers.oatsUnknownSupply }), 400, "validation_failed", [
      "baseGs1",
    ]);
    expectError(await patch(c.id, { externalReference: "other" }), 400, "validation_failed", [
      "externalReference",
    ]);
    expectError(await patch(c.id, { externalReference: null, name: "x" }), 400, "validation_failed", [
      "externalReference",
    ]);
    expect(await getCampaign(s.sb, c.id)).toEqual(c);
  });
});

describe("codeLimit (rule 2)", () => {
  it("is the new absolute total; lowered down to issued + testCodes", async () => {
    const c = await makeCampaign(s.sb, { codeLimit: 100 });
    handOut(s.sb, c.id, 30, 5);
    const d = expectError(await patch(c.id, { codeLimit: 34 }), 400, "validation_failed", ["codeLimit"]);
    expect(d!.codeLimit![0]).toMatch(/35/);
    const a = await patchOk(c.id, { codeLimit: 35 });
    expect(a.codes).toEqual({ limit: 35, issued: 30, redeemed: 0, testCodes: 5, remaining: 0 });
    const b = await patchOk(c.id, { codeLimit: 60 });
    expect(b.codes.limit).toBe(60);
    expect(b.codes.remaining).toBe(25);
    expect(b.codes.limit).toBe(b.codes.issued + b.codes.testCodes + b.codes.remaining);
    for (const v of [0, 10_000_001, 2.5, "70"])
      expectError(await patch(c.id, { codeLimit: v }), 400, "validation_failed", ["codeLimit"]);
  });

  it("raise: bounded by the offer's available codes", async () => {
    const c = await makeCampaign(s.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 10 }); // 25 available
    expect((await patchOk(c.id, { codeLimit: 25 })).codes.limit).toBe(25);
    expectError(await patch(c.id, { codeLimit: 26 }), 400, "validation_failed", ["codeLimit"]);
    // With 20 handed out and 25 left on the offer, the new remainder (limit - 20) may be 25.
    handOut(s.sb, c.id, 20);
    expect((await patchOk(c.id, { codeLimit: 45 })).codes.remaining).toBe(25);
  });

  it("raise refused (409) when the campaign ended, the offer is not available, or it has no codes left", async () => {
    const o = await offer(s.sb, SEED.offers.oatsUnknownSupply);
    const c = await makeCampaign(s.sb, { baseGs1: o.baseGs1, codeLimit: 10 });
    const setOffer = (b: unknown) => s.http("POST", `/offers/${o.baseGs1}`, { control: true, body: b });
    try {
      await setOffer({ state: "temporarily_unavailable" });
      expectError(await patch(c.id, { codeLimit: 11 }), 409, "conflict");
      // lowering still works
      expect((await patchOk(c.id, { codeLimit: 9 })).codes.limit).toBe(9);
      await setOffer({ state: "available", codesAvailable: 0 });
      expectError(await patch(c.id, { codeLimit: 11 }), 409, "conflict");
      await setOffer({ codesAvailable: null });
      expect((await patchOk(c.id, { codeLimit: 1000 })).codes.limit).toBe(1000);
      await setStatus(s.sb, c.id, "ended");
      expectError(await patch(c.id, { codeLimit: 1001 }), 409, "conflict");
      // an ended campaign may still be lowered and renamed
      const e = await patchOk(c.id, { codeLimit: 500, name: "Ended but renamed" });
      expect(e.codes.limit).toBe(500);
      expect(e.name).toBe("Ended but renamed");
    } finally {
      await setOffer({ state: "available", codesAvailable: null });
    }
  });
});

describe("retailer (rule 3)", () => {
  it("null clears, an object replaces; both fields together; allowedRetailers apply", async () => {
    const c = await makeCampaign(s.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 5 });
    const a = await patchOk(c.id, { retailer: { emailDomain: "freshmart.example", name: "FreshMart" } });
    expect(a.retailer).toEqual({ emailDomain: "freshmart.example", name: "FreshMart" });
    const b = await patchOk(c.id, { retailer: null });
    expect(b.retailer).toBeNull();
    expectError(
      await patch(c.id, { retailer: { emailDomain: "freshmart.example" } }),
      400,
      "validation_failed",
      ["retailer.name"],
    );
    expectError(
      await patch(c.id, { retailer: { emailDomain: "cornerstore.example", name: "Corner" } }),
      400,
      "validation_failed",
      ["retailer.emailDomain"],
    );
    // absent keeps
    await patchOk(c.id, { retailer: { emailDomain: "freshmart.example", name: "FreshMart" } });
    expect((await patchOk(c.id, { name: "kept retailer" })).retailer).toEqual({
      emailDomain: "freshmart.example",
      name: "FreshMart",
    });
  });

  it("an offer that requires a retailer refuses null", async () => {
    const c = await makeCampaign(s.sb, {
      baseGs1: SEED.offers.sodaRetail,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
    });
    expectError(await patch(c.id, { retailer: null }), 400, "validation_failed", ["retailer"]);
    const b = await patchOk(c.id, { retailer: { emailDomain: "cornerstore.example", name: "Corner" } });
    expect(b.retailer).toEqual({ emailDomain: "cornerstore.example", name: "Corner" });
  });

  it("once canChangeRetailer is false the emailDomain is fixed; the name changes with the same domain", async () => {
    const c = await makeCampaign(s.sb, {
      baseGs1: SEED.offers.sodaRetail,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
    });
    handOut(s.sb, c.id, 1);
    expect((await getCampaign(s.sb, c.id)).canChangeRetailer).toBe(false);
    expectError(
      await patch(c.id, { retailer: { emailDomain: "cornerstore.example", name: "Corner" } }),
      409,
      "conflict",
    );
    expectError(await patch(c.id, { retailer: null }), 409, "conflict");
    const b = await patchOk(c.id, {
      retailer: { emailDomain: "freshmart.example", name: "FreshMart Stores" },
    });
    expect(b.retailer).toEqual({ emailDomain: "freshmart.example", name: "FreshMart Stores" });
  });

  it("an unrestricted campaign cannot gain a restriction once a code is prepared", async () => {
    const c = await makeCampaign(s.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 5 });
    handOut(s.sb, c.id, 0, 1);
    expectError(
      await patch(c.id, { retailer: { emailDomain: "freshmart.example", name: "FreshMart" } }),
      409,
      "conflict",
    );
    // null on an unrestricted campaign changes nothing
    expect((await patchOk(c.id, { retailer: null })).retailer).toBeNull();
  });
});

describe("PATCH errors", () => {
  it("404 for unknown and another organization's campaign; 403 read-only", async () => {
    const c = await makeCampaign(s.sb);
    expectError(await patch("00000000-0000-4000-8000-000000000000", { name: "x" }), 404, "not_found");
    expectError(
      await s.http("PATCH", `/campaigns/${c.id}`, { key: s.sb.testKeys.otherOrgKey, body: { name: "x" } }),
      404,
      "not_found",
    );
    expectError(
      await s.http("PATCH", `/campaigns/${c.id}`, { key: s.readOnlyKey, body: { name: "x" } }),
      403,
      "forbidden",
    );
  });
});
