// Reports: summary, campaign report and creator counts over HTTP, with the field semantics 1-10.
import { beforeAll, describe, expect, it } from "vitest";
import { strictReports } from "../../src/spec/reports.js";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { feedAll, instantIn } from "./traffic-util.js";
import { NY, TRAFFIC, dayIn, makeCampaign, simulate } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const summary = async (sb: RunningSandbox, q = "") =>
  strict(strictReports.Summary, await http(sb, "GET", `/reports/summary${q ? `?${q}` : ""}`));
const report = async (sb: RunningSandbox, id: string, q = "") =>
  strict(strictReports.CampaignReport, await http(sb, "GET", `/campaigns/${id}/report${q ? `?${q}` : ""}`));
const counts = async (sb: RunningSandbox, q = "") =>
  strict(strictReports.CreatorCounts, await http(sb, "GET", `/reports/creator-counts${q ? `?${q}` : ""}`));

describe("reports", () => {
  const box = useSandbox();
  let a: { id: string };
  let b: { id: string };
  let d1: string;
  let d2: string;
  let d3: string;
  let oats: string;
  let soda: string;
  beforeAll(async () => {
    d1 = dayIn(box.sb, NY, -1);
    d2 = dayIn(box.sb, NY, -2);
    d3 = dayIn(box.sb, NY, -3);
    oats = (await box.http("GET", `/offers/${SEED.offers.oatsUnknownSupply}`)).body.brand.id;
    soda = (await box.http("GET", `/offers/${SEED.offers.sodaRetail}`)).body.brand.id;
    // A: Oats, three creators; B: Soda, one creator; C: Oats draft without activity.
    a = await makeCampaign(box.sb, {
      ...TRAFFIC,
      dates: { ...TRAFFIC.dates, from: d3 },
      externalReference: "A",
      commission: { ...TRAFFIC.commission, rate: 0.1, estimatedUnitSalePrice: 2.5 },
    });
    b = await makeCampaign(box.sb, {
      ...TRAFFIC,
      baseGs1: SEED.offers.sodaRetail,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
      dates: { ...TRAFFIC.dates, from: d3 },
      codeLimit: 1000,
      externalReference: "B",
      commission: { ...TRAFFIC.commission, rate: "0.125", estimatedUnitSalePrice: "1.00" },
      creators: ["cr-0004"],
    });
    await makeCampaign(box.sb, { ...TRAFFIC, status: "draft", externalReference: "C", creators: [] });
    const at = (day: string, time: string) => instantIn(NY, day, time);
    // Codes: A 9 on d3, B 4 on d2; staff test codes on both.
    await simulate(box.sb, { campaign: "A", claims: 9, testCodes: 3, at: at(d3, "10:00:00"), seed: 1 });
    await simulate(box.sb, { campaign: "B", claims: 4, testCodes: 1, at: at(d2, "10:00:00") });
    // Redemptions: A 3 on d2, 2 on d1 (one later excluded), one test-code redemption; B 2 on d1.
    await simulate(box.sb, {
      campaign: "A",
      redemptions: 3,
      testRedemptions: 1,
      at: at(d2, "15:00:00"),
      seed: 2,
    });
    await simulate(box.sb, { campaign: "A", redemptions: 2, at: at(d1, "15:00:00"), seed: 3 });
    await simulate(box.sb, { campaign: "B", redemptions: 2, testRedemptions: 1, at: at(d1, "16:00:00") });
    const late = (await feedAll(box.sb)).filter(
      (x) => x.campaign.id === a.id && x.redeemedAt === at(d1, "15:00:00"),
    );
    await simulate(box.sb, { exclude: [late[0].id] });
    // Views on B's single link: origin 1 twice on d1 (once counted), origin 2 on d1, origin 1 on d2.
    await simulate(box.sb, { campaign: "B", views: 2, origin: "192.0.2.1", at: at(d1, "09:00:00") });
    await simulate(box.sb, { campaign: "B", views: 1, origin: "192.0.2.1", at: at(d1, "21:00:00") });
    await simulate(box.sb, { campaign: "B", views: 1, origin: "192.0.2.2", at: at(d1, "09:30:00") });
    await simulate(box.sb, { campaign: "B", views: 1, origin: "192.0.2.1", at: at(d2, "09:00:00") });
  });

  describe("summary", () => {
    it("counts each figure by its own date, leaves out staff tests and excluded redemptions", async () => {
      const s = await summary(box.sb, `from=${d3}&through=${d1}`);
      expect(s.range).toEqual({ from: d3, through: d1, timeZone: NY, preset: "custom" });
      expect(s.totals).toEqual({
        activeCampaigns: 2,
        campaigns: 3,
        linkViews: 3,
        codesIssued: 13,
        verifiedRedemptions: 6,
        redemptionRate: 0.4615, // 6 / 13
        // A: 0.1 × 2.5 × 4 = 1; B: 0.125 × 1.00 × 2 = 0.25
        estimatedCommission: 1.25,
        // A: 2.5 × 4 = 10; B: 1 × 2 = 2
        estimatedSalesValue: 12,
      });
      // Brand rows sum to totals; rates computed from counts.
      const brandOats = s.brands.find((x) => x.brand.id === oats)!;
      const brandSoda = s.brands.find((x) => x.brand.id === soda)!;
      expect(brandOats).toEqual({
        brand: { id: oats, name: "Crunchy Oats Co." },
        campaigns: 2,
        activeCampaigns: 1,
        linkViews: 0,
        codesIssued: 9,
        verifiedRedemptions: 4,
        redemptionRate: 0.4444,
        estimatedCommission: 1,
      });
      expect(brandSoda).toMatchObject({ campaigns: 1, activeCampaigns: 1, linkViews: 3, codesIssued: 4 });
      expect(brandSoda.verifiedRedemptions).toBe(2);
      expect(brandSoda.redemptionRate).toBe(0.5);
      for (const f of [
        "campaigns",
        "activeCampaigns",
        "linkViews",
        "codesIssued",
        "verifiedRedemptions",
      ] as const)
        expect(s.brands.reduce((n, x) => n + x[f], 0)).toBe(s.totals[f]);
      expect(s.brands.reduce((n, x) => n + Number(x.estimatedCommission), 0)).toBe(
        s.totals.estimatedCommission,
      );
    });

    it("counts codes and redemptions on their own days", async () => {
      const onD2 = await summary(box.sb, `from=${d2}&through=${d2}`);
      expect(onD2.totals).toMatchObject({ codesIssued: 4, verifiedRedemptions: 3, linkViews: 1 });
      const onD1 = await summary(box.sb, `from=${d1}&through=${d1}`);
      expect(onD1.totals).toMatchObject({ codesIssued: 0, verifiedRedemptions: 2 + 1, linkViews: 2 });
      // No issued codes in the range: the rate is null, never 0.
      expect(onD1.totals.redemptionRate).toBeNull();
      const today = await summary(box.sb, "preset=today");
      expect(today.totals).toMatchObject({ codesIssued: 0, verifiedRedemptions: 0, redemptionRate: null });
      expect(today.totals.campaigns).toBe(3);
    });

    it("filters by brand; activeCampaigns needs dates overlapping the range", async () => {
      const s = await summary(box.sb, `brandId=${soda}&from=${d1}&through=${d1}`);
      expect(s.brands.map((x) => x.brand.id)).toEqual([soda]);
      expect(s.totals.campaigns).toBe(1);
      const before = await summary(
        box.sb,
        `from=${dayIn(box.sb, NY, -40)}&through=${dayIn(box.sb, NY, -35)}`,
      );
      expect(before.totals).toMatchObject({ campaigns: 3, activeCampaigns: 0 });
      const none = await summary(box.sb, "brandId=00000000-0000-4000-8000-000000000000");
      expect(none.totals.campaigns).toBe(0);
      expect(none.brands).toEqual([]);
    });

    it("defaults to 30d and refuses bad ranges", async () => {
      const s = await summary(box.sb);
      expect(s.range).toEqual({
        from: dayIn(box.sb, NY, -29),
        through: dayIn(box.sb, NY, 0),
        timeZone: NY,
        preset: "30d",
      });
      expect(s.totals.verifiedRedemptions).toBe(6);
      expectError(
        await box.http(
          "GET",
          `/reports/summary?from=${dayIn(box.sb, NY, -366)}&through=${dayIn(box.sb, NY, 0)}`,
        ),
        400,
        "validation_failed",
        ["through"],
      );
      expect(
        (await summary(box.sb, `from=${dayIn(box.sb, NY, -365)}&through=${dayIn(box.sb, NY, 0)}`)).totals
          .campaigns,
      ).toBe(3);
      expectError(
        await box.http("GET", `/reports/summary?preset=7d&from=${d1}&through=${d1}`),
        400,
        "validation_failed",
        ["preset"],
      );
    });
  });

  describe("campaign report", () => {
    it("ranks creators by verified redemptions, ties by externalId, and includes every link", async () => {
      await box.http("PATCH", `/campaigns/${a.id}/creators/cr-0003`, { body: { active: false } });
      const r = await report(box.sb, a.id, `from=${d3}&through=${d1}`);
      expect(r.campaign).toEqual({ id: a.id, externalReference: "A", name: "Traffic test" });
      expect(r.brand).toEqual({ id: oats, name: "Crunchy Oats Co." });
      expect(r.commission).toEqual({ rate: 0.1, estimatedUnitSalePrice: 2.5, estimatedPerRedemption: 0.25 });
      expect(r.totals).toEqual({
        linkViews: 0,
        codesIssued: 9,
        verifiedRedemptions: 4,
        redemptionRate: 0.4444,
        estimatedCommission: 1,
      });
      const items = r.creators.items;
      expect(items).toHaveLength(3);
      expect(items.map((x) => x.rank)).toEqual([1, 2, 3]);
      for (let i = 1; i < items.length; i++) {
        const p = items[i - 1]!;
        const c = items[i]!;
        expect(
          p.verifiedRedemptions > c.verifiedRedemptions ||
            (p.verifiedRedemptions === c.verifiedRedemptions && p.creator.externalId < c.creator.externalId),
        ).toBe(true);
      }
      expect(items.reduce((n, x) => n + x.verifiedRedemptions, 0)).toBe(4);
      expect(items.reduce((n, x) => n + x.codesIssued, 0)).toBe(9);
      expect(items.find((x) => x.creator.externalId === "cr-0003")!.active).toBe(false);
      for (const x of items) {
        expect(x.conversionRate).toBeNull(); // no views on A
        expect(x.estimatedCommission).toBe(x.verifiedRedemptions * 0.25);
      }
    });

    it("has one daily entry per day including empty ones, and totals cover the whole campaign", async () => {
      const r = await report(box.sb, b.id, `from=${d3}&through=${dayIn(box.sb, NY, 0)}&pageSize=1`);
      expect(r.daily).toEqual([
        { date: d3, linkViews: 0, codesIssued: 0, verifiedRedemptions: 0 },
        { date: d2, linkViews: 1, codesIssued: 4, verifiedRedemptions: 0 },
        { date: d1, linkViews: 2, codesIssued: 0, verifiedRedemptions: 2 },
        { date: dayIn(box.sb, NY, 0), linkViews: 0, codesIssued: 0, verifiedRedemptions: 0 },
      ]);
      expect(r.totals).toEqual({
        linkViews: 3,
        codesIssued: 4,
        verifiedRedemptions: 2,
        redemptionRate: 0.5,
        estimatedCommission: 0.25,
      });
      expect(r.creators).toMatchObject({ page: 0, pageSize: 1, totalCount: 1 });
      expect(r.creators.items[0]).toEqual({
        rank: 1,
        creator: { externalId: "cr-0004", name: "Dev Patel" },
        active: true,
        linkViews: 3,
        codesIssued: 4,
        verifiedRedemptions: 2,
        conversionRate: 0.6667,
        estimatedCommission: 0.25,
      });
      const week = await report(box.sb, b.id, "preset=7d");
      expect(week.daily).toHaveLength(7);
      expect(week.daily[6]!.date).toBe(dayIn(box.sb, NY, 0));
    });

    it("answers 404 for another organization's campaign and refuses 367 days", async () => {
      expectError(
        await box.http("GET", `/campaigns/${a.id}/report`, { key: box.sb.testKeys.otherOrgKey }),
        404,
        "not_found",
      );
      expectError(
        await http(
          box.sb,
          "GET",
          `/campaigns/${a.id}/report?from=${dayIn(box.sb, NY, -366)}&through=${dayIn(box.sb, NY, 0)}`,
        ),
        400,
        "validation_failed",
        ["through"],
      );
      expect(
        (await report(box.sb, a.id, `from=${dayIn(box.sb, NY, -365)}&through=${dayIn(box.sb, NY, 0)}`)).daily,
      ).toHaveLength(366);
    });

    it("recalculates past estimates from the current rate and price; counts unchanged", async () => {
      const before = await report(box.sb, a.id, `from=${d3}&through=${d1}`);
      const p = await box.http("PATCH", `/campaigns/${a.id}`, { body: { commission: { rate: 0.2 } } });
      expect(p.status).toBe(200);
      const after = await report(box.sb, a.id, `from=${d3}&through=${d1}`);
      expect(after.totals.verifiedRedemptions).toBe(before.totals.verifiedRedemptions);
      expect(after.totals.estimatedCommission).toBe(2);
      expect(after.commission.rate).toBe(0.2);
      await box.http("PATCH", `/campaigns/${a.id}`, { body: { commission: { rate: 0.1 } } });
    });
  });

  describe("creator counts", () => {
    it("has one row per creator per campaign, zero and paused included, matching the campaign report", async () => {
      const c = await counts(box.sb, `from=${d3}&through=${d1}`);
      expect(c.totalCount).toBe(4); // A: 3 links, B: 1 link, C: none
      const rowsA = c.items.filter((x) => x.campaign.id === a.id);
      const rep = await report(box.sb, a.id, `from=${d3}&through=${d1}`);
      for (const row of rowsA) {
        const r = rep.creators.items.find((x) => x.creator.externalId === row.creator.externalId)!;
        expect(row.verifiedRedemptions).toBe(r.verifiedRedemptions);
        expect(row.estimatedCommission).toBe(r.estimatedCommission);
        expect(row).toMatchObject({ commissionRate: 0.1, estimatedUnitSalePrice: 2.5, brand: { id: oats } });
      }
      const rowB = c.items.find((x) => x.campaign.id === b.id)!;
      expect(rowB).toEqual({
        creator: { externalId: "cr-0004", name: "Dev Patel" },
        campaign: { id: b.id, externalReference: "B", name: "Traffic test" },
        brand: { id: soda, name: "Sparkle Soda" },
        verifiedRedemptions: 2,
        estimatedCommission: 0.25,
        commissionRate: 0.125,
        estimatedUnitSalePrice: 1,
      });
    });

    it("filters by brand and campaign, pages, and has no 366-day cap", async () => {
      expect((await counts(box.sb, `brandId=${soda}`)).totalCount).toBe(1);
      expect((await counts(box.sb, `campaignId=${a.id}`)).totalCount).toBe(3);
      const p = await counts(box.sb, "pageSize=2&page=1");
      expect(p).toMatchObject({ page: 1, pageSize: 2, totalCount: 4 });
      expect(p.items).toHaveLength(2);
      const long = await counts(box.sb, `from=${dayIn(box.sb, NY, -800)}&through=${dayIn(box.sb, NY, 0)}`);
      expect(long.items.reduce((n, x) => n + x.verifiedRedemptions, 0)).toBe(6);
      const onlyToday = await counts(box.sb, "preset=today");
      expect(onlyToday.totalCount).toBe(4);
      expect(onlyToday.items.every((x) => x.verifiedRedemptions === 0 && x.estimatedCommission === 0)).toBe(
        true,
      );
      expectError(
        await box.http("GET", `/reports/creator-counts?from=${d1}&through=${d2}`),
        400,
        "validation_failed",
        ["through"],
      );
    });
  });
});
