// Campaigns: POST /campaigns (every create rule), GET one, GET list (order, filters, paging).
import { describe, expect, it } from "vitest";
import { strictCampaigns } from "../../src/spec/campaigns.js";
import { http } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { body, eventsOf, offer, shift } from "./campaigns-fixtures.js";
import { makeCampaign } from "../helpers/fixtures.js";
import { useSandbox, withSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();

const post = async (over: Record<string, unknown>) =>
  s.http("POST", "/campaigns", { body: await body(s.sb, over) });

describe("POST /campaigns", () => {
  it("creates a draft (201) with derived fields and no event", async () => {
    const before = eventsOf(s.sb, "campaign.status_changed").length;
    const c = await makeCampaign(s.sb, {
      name: "  Spring push  ",
      commission: { rate: "0.125", estimatedUnitSalePrice: 3.99 },
      codeLimit: 500,
      externalReference: "ref-create-1",
    });
    expect(c.status).toBe("draft");
    expect(c.name).toBe("Spring push");
    expect(c.externalReference).toBe("ref-create-1");
    expect(c.offer).toEqual({
      baseGs1: SEED.offers.oats,
      title: "Crunchy Oats 12oz: $1.50 off",
      brand: { id: expect.any(String), name: "Crunchy Oats Co." },
    });
    expect(c.commission).toEqual({
      rate: 0.125,
      estimatedUnitSalePrice: 3.99,
      estimatedPerRedemption: 0.4988,
    });
    expect(c.codes).toEqual({ limit: 500, issued: 0, redeemed: 0, testCodes: 0, remaining: 500 });
    expect(c.allowedStatuses).toEqual(["active", "ended"]);
    expect(c.canChangeRetailer).toBe(true);
    expect(c.retailer).toBeNull();
    expect(c.createdAt).toBe(c.updatedAt);
    expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(eventsOf(s.sb, "campaign.status_changed").length).toBe(before);
    // GET returns the same object
    expect(strict(strictCampaigns.Campaign, await s.http("GET", `/campaigns/${c.id}`))).toEqual(c);
  });

  it("estimatedPerRedemption is rate × price rounded half-even to 4 places", async () => {
    // 0.0125 × 0.5 = 0.00625 → 0.0062 (ties to even); 0.0375 × 0.5 = 0.01875 → 0.0188
    const a = await makeCampaign(s.sb, { commission: { rate: 0.0125, estimatedUnitSalePrice: 0.5 } });
    expect(a.commission.estimatedPerRedemption).toBe(0.0062);
    const b = await makeCampaign(s.sb, { commission: { rate: 0.0375, estimatedUnitSalePrice: 0.5 } });
    expect(b.commission.estimatedPerRedemption).toBe(0.0188);
    const c = await makeCampaign(s.sb, { commission: { rate: 1, estimatedUnitSalePrice: 100000 } });
    expect(c.commission).toEqual({ rate: 1, estimatedUnitSalePrice: 100000, estimatedPerRedemption: 100000 });
    const z = await makeCampaign(s.sb, { commission: { rate: 0, estimatedUnitSalePrice: 0 } });
    expect(z.commission.estimatedPerRedemption).toBe(0);
  });

  it("decimal places are checked on the decimal text (numbers and strings)", async () => {
    expectError(
      await post({ commission: { rate: 0.12345, estimatedUnitSalePrice: 1 } }),
      400,
      "validation_failed",
      ["commission.rate"],
    );
    expectError(
      await post({ commission: { rate: "0.12345", estimatedUnitSalePrice: 1 } }),
      400,
      "validation_failed",
      ["commission.rate"],
    );
    expectError(
      await post({ commission: { rate: 0.1, estimatedUnitSalePrice: 1.999 } }),
      400,
      "validation_failed",
      ["commission.estimatedUnitSalePrice"],
    );
    // Floats that multiply badly (0.29 × 100 = 28.999999999999996) are still 2 places.
    const ok = await makeCampaign(s.sb, { commission: { rate: "0.1000", estimatedUnitSalePrice: 0.29 } });
    expect(ok.commission.estimatedUnitSalePrice).toBe(0.29);
    expect(ok.commission.rate).toBe(0.1);
  });

  it("commission ranges: rate 0..1, price 0..100,000; non-decimals refused", async () => {
    const d = expectError(
      await post({ commission: { rate: 1.5, estimatedUnitSalePrice: 100000.01 } }),
      400,
      "validation_failed",
      ["commission.rate", "commission.estimatedUnitSalePrice"],
    );
    expect(d!["commission.rate"]![0]).toMatch(/between 0 and 1/);
    expectError(
      await post({ commission: { rate: -0.1, estimatedUnitSalePrice: 1 } }),
      400,
      "validation_failed",
      ["commission.rate"],
    );
    expectError(
      await post({ commission: { rate: "ten", estimatedUnitSalePrice: true } }),
      400,
      "validation_failed",
      ["commission.rate", "commission.estimatedUnitSalePrice"],
    );
    expectError(await post({ commission: { rate: 0.1 } }), 400, "validation_failed", [
      "commission.estimatedUnitSalePrice",
    ]);
  });

  it("required fields are reported by name", async () => {
    const d = expectError(await s.http("POST", "/campaigns", { body: {} }), 400, "validation_failed", [
      "name",
      "baseGs1",
      "dates",
      "codeLimit",
      "commission",
    ]);
    expect(d!.name).toEqual(["is required"]);
    expectError(await s.http("POST", "/campaigns", { body: [1] }), 400, "validation_failed");
    expectError(await s.http("POST", "/campaigns", { rawBody: "{nope" }), 400, "validation_failed");
  });

  it("name: one line, trimmed, at most 120 characters, not blank", async () => {
    expectError(await post({ name: "a\nb" }), 400, "validation_failed", ["name"]);
    expectError(await post({ name: "   " }), 400, "validation_failed", ["name"]);
    expectError(await post({ name: "x".repeat(121) }), 400, "validation_failed", ["name"]);
    const c = await makeCampaign(s.sb, { name: ` ${"x".repeat(120)} ` });
    expect(c.name).toBe("x".repeat(120));
  });

  it("offer: unknown, another organization's, or not distributable → 400 on baseGs1", async () => {
    expectError(await post({ baseGs1: "0000000000000" }), 400, "validation_failed", ["baseGs1"]);
    // Globex's offer is not visible to Northwind.
    const res = await s.http("POST", "/campaigns", {
      body: await body(s.sb, { baseGs1: SEED.offers.otherOrg }),
    });
    expectError(res, 400, "validation_failed", ["baseGs1"]);
    for (const b of [
      SEED.offers.notYetStarted,
      SEED.offers.expired,
      SEED.offers.tempUnavailable,
      SEED.offers.notDistributable,
    ]) {
      const r = await s.http("POST", "/campaigns", {
        body: { ...(await body(s.sb)), baseGs1: b },
      });
      const d = expectError(r, 400, "validation_failed", ["baseGs1"]);
      expect(d!.baseGs1![0]).toMatch(/cannot be distributed/);
    }
  });

  it("dates: required, real days, inside the offer's redemptionDates, through on or after from", async () => {
    const o = await offer(s.sb, SEED.offers.oats);
    const { from, through } = o.redemptionDates!;
    expectError(await post({ dates: { from: shift(from, -1), through } }), 400, "validation_failed", [
      "dates.from",
    ]);
    expectError(await post({ dates: { from, through: shift(through, 1) } }), 400, "validation_failed", [
      "dates.through",
    ]);
    expectError(
      await post({ dates: { from: shift(from, 5), through: shift(from, 4) } }),
      400,
      "validation_failed",
      ["dates.through"],
    );
    expectError(await post({ dates: { from: "2026-02-30", through } }), 400, "validation_failed", [
      "dates.from",
    ]);
    expectError(await post({ dates: { from } }), 400, "validation_failed", ["dates.through"]);
    // The whole window, and a single day, are fine.
    expect((await makeCampaign(s.sb, { dates: { from, through } })).dates).toEqual({ from, through });
    expect((await makeCampaign(s.sb, { dates: { from, through: from } })).dates).toEqual({
      from,
      through: from,
    });
  });

  it("codeLimit: integer 1..10,000,000 and within the offer's available codes", async () => {
    for (const v of [0, -1, 1.5, "10", 10_000_001, null])
      expectError(await post({ codeLimit: v }), 400, "validation_failed", ["codeLimit"]);
    // oats has 50,000 available
    const d = expectError(await post({ codeLimit: 50_001 }), 400, "validation_failed", ["codeLimit"]);
    expect(d!.codeLimit![0]).toMatch(/50,000/);
    expect((await makeCampaign(s.sb, { codeLimit: 50_000 })).codes.limit).toBe(50_000);
    // unknown supply (null) is bounded only by 10,000,000
    const big = await makeCampaign(s.sb, { baseGs1: SEED.offers.oatsUnknownSupply, codeLimit: 10_000_000 });
    expect(big.codes.remaining).toBe(10_000_000);
  });

  it("retailer: required when the offer says so; emailDomain one of allowedRetailers; both fields together", async () => {
    const soda = { baseGs1: SEED.offers.sodaRetail };
    expectError(await post(soda), 400, "validation_failed", ["retailer"]);
    expectError(await post({ ...soda, retailer: null }), 400, "validation_failed", ["retailer"]);
    expectError(
      await post({ ...soda, retailer: { emailDomain: "elsewhere.example", name: "Else" } }),
      400,
      "validation_failed",
      ["retailer.emailDomain"],
    );
    expectError(
      await post({ ...soda, retailer: { emailDomain: "freshmart.example" } }),
      400,
      "validation_failed",
      ["retailer.name"],
    );
    expectError(await post({ ...soda, retailer: { name: "FreshMart" } }), 400, "validation_failed", [
      "retailer.emailDomain",
    ]);
    const c = await makeCampaign(s.sb, {
      ...soda,
      retailer: { emailDomain: "FreshMart.example", name: " FreshMart " },
    });
    expect(c.retailer).toEqual({ emailDomain: "freshmart.example", name: "FreshMart" });
    // An offer with no allowed retailers refuses any restriction.
    expectError(
      await post({ retailer: { emailDomain: "freshmart.example", name: "FreshMart" } }),
      400,
      "validation_failed",
      ["retailer.emailDomain"],
    );
    // Optional where not required
    const z = await makeCampaign(s.sb, { baseGs1: SEED.offers.sodaZero, codeLimit: 25 });
    expect(z.retailer).toBeNull();
  });

  it("externalReference: at most 120, one line, unique in the organization (409 names the campaign)", async () => {
    expectError(await post({ externalReference: "r".repeat(121) }), 400, "validation_failed", [
      "externalReference",
    ]);
    expectError(await post({ externalReference: 12 }), 400, "validation_failed", ["externalReference"]);
    const first = await makeCampaign(s.sb, { externalReference: "dup-ref" });
    const res = await post({ externalReference: "dup-ref" });
    expectError(res, 409, "conflict");
    expect(res.body.error.message).toContain(first.id);
    // Recover with GET /campaigns?externalReference=
    const page = strict(
      strictCampaigns.CampaignPage,
      await s.http("GET", "/campaigns?externalReference=dup-ref"),
    );
    expect(page.items.map((c) => c.id)).toEqual([first.id]);
    // Another organization may use the same reference.
    const globex = await s.http("POST", "/campaigns", {
      key: s.sb.testKeys.otherOrgKey,
      body: await body(
        s.sb,
        { baseGs1: SEED.offers.otherOrg, codeLimit: 10, externalReference: "dup-ref" },
        s.sb.testKeys.otherOrgKey,
      ),
    });
    strict(strictCampaigns.Campaign, globex, 201);
    // null externalReference is allowed many times
    expect((await makeCampaign(s.sb, { externalReference: null })).externalReference).toBeNull();
    expect((await makeCampaign(s.sb, { externalReference: null })).externalReference).toBeNull();
  });

  it("a brand the organization lost access to: 409", async () => {
    const o = await offer(s.sb, SEED.offers.sodaZero);
    await s.http("POST", `/brands/${o.brand.id}/access`, { control: true, body: { access: false } });
    try {
      expectError(await post({ baseGs1: SEED.offers.sodaZero, codeLimit: 5 }), 409, "conflict");
    } finally {
      await s.http("POST", `/brands/${o.brand.id}/access`, { control: true, body: { access: true } });
    }
  });

  it("read-only key: 403", async () => {
    const res = await s.http("POST", "/campaigns", { key: s.readOnlyKey, body: await body(s.sb) });
    expectError(res, 403, "forbidden");
  });
});

describe("GET /campaigns/{id}", () => {
  it("404 for unknown and for another organization's campaign", async () => {
    expectError(await s.http("GET", "/campaigns/00000000-0000-4000-8000-000000000000"), 404, "not_found");
    const mine = await makeCampaign(s.sb);
    expectError(
      await s.http("GET", `/campaigns/${mine.id}`, { key: s.sb.testKeys.otherOrgKey }),
      404,
      "not_found",
    );
    // read-only keys read
    strict(strictCampaigns.Campaign, await s.http("GET", `/campaigns/${mine.id}`, { key: s.readOnlyKey }));
  });
});

describe("GET /campaigns", () => {
  it("newest first, filters status/brandId/externalReference, paging", async () => {
    await withSandbox({ seed: "empty" }, async ({ sb: fresh }) => {
      const made = [];
      for (let i = 0; i < 5; i++) {
        const b = await body(fresh, {
          baseGs1: i < 3 ? SEED.offers.oats : SEED.offers.sodaZero,
          codeLimit: 5,
          externalReference: `L${i}`,
        });
        const res = await http(fresh, "POST", "/campaigns", { body: b });
        made.push(strict(strictCampaigns.Campaign, res, 201));
        if (i === 1) await http(fresh, "POST", "/advance", { control: true, body: { duration: "1m" } });
      }
      const all = strict(strictCampaigns.CampaignPage, await http(fresh, "GET", "/campaigns"));
      expect(all.totalCount).toBe(5);
      expect(all.page).toBe(0);
      expect(all.pageSize).toBe(50);
      expect(all.items.map((c) => c.externalReference)).toEqual(["L4", "L3", "L2", "L1", "L0"]);

      const clamp = async (q: string) =>
        strict(strictCampaigns.CampaignPage, await http(fresh, "GET", `/campaigns?${q}`));
      expect((await clamp("pageSize=500")).pageSize).toBe(200);
      expect((await clamp("pageSize=0")).pageSize).toBe(50);
      expect((await clamp("pageSize=-3")).pageSize).toBe(50);
      expect((await clamp("page=-2")).page).toBe(0);
      expect(await clamp("page=9")).toEqual({ items: [], page: 9, pageSize: 50, totalCount: 5 });
      expectError(await http(fresh, "GET", "/campaigns?page=x"), 400, "validation_failed", ["page"]);

      const p1 = strict(
        strictCampaigns.CampaignPage,
        await http(fresh, "GET", "/campaigns?page=1&pageSize=2"),
      );
      expect(p1.items.map((c) => c.externalReference)).toEqual(["L2", "L1"]);
      expect(p1.totalCount).toBe(5);

      await http(fresh, "POST", `/campaigns/${made[0]!.id}/status`, { body: { status: "active" } });
      const active = strict(
        strictCampaigns.CampaignPage,
        await http(fresh, "GET", "/campaigns?status=active"),
      );
      expect(active.items.map((c) => c.id)).toEqual([made[0]!.id]);
      expect(active.totalCount).toBe(1);
      expectError(await http(fresh, "GET", "/campaigns?status=archived"), 400, "validation_failed", [
        "status",
      ]);

      const sodaBrand = made[4]!.offer.brand.id;
      const byBrand = strict(
        strictCampaigns.CampaignPage,
        await http(fresh, "GET", `/campaigns?brandId=${sodaBrand}`),
      );
      expect(byBrand.items.map((c) => c.externalReference)).toEqual(["L4", "L3"]);

      const byRef = strict(
        strictCampaigns.CampaignPage,
        await http(fresh, "GET", "/campaigns?externalReference=L3"),
      );
      expect(byRef.items.map((c) => c.id)).toEqual([made[3]!.id]);
      const none = strict(
        strictCampaigns.CampaignPage,
        await http(fresh, "GET", "/campaigns?externalReference=nope"),
      );
      expect(none).toEqual({ items: [], page: 0, pageSize: 50, totalCount: 0 });

      // Another organization sees none of them
      const other = strict(
        strictCampaigns.CampaignPage,
        await http(fresh, "GET", "/campaigns", { key: fresh.testKeys.otherOrgKey }),
      );
      expect(other.totalCount).toBe(0);
    });
  });
});
