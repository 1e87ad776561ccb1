// Report days across a DST change in the reporting time zone, and commission rounding (once, to four
// decimals, ties to even).
import { Temporal } from "temporal-polyfill";
import { describe, expect, it } from "vitest";
import { strictRedemptions } from "../../src/spec/redemptions.js";
import { strictReports } from "../../src/spec/reports.js";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { strict } from "./core-util.js";
import { advanceTo, instantIn } from "./traffic-util.js";
import { NY, TRAFFIC, dayIn, makeCampaign, simulate } from "../helpers/fixtures.js";
import { withSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

/**
 * A DST change in New York usable with the seeded offer (redemption dates 30 days back to 180 ahead):
 * the previous one when it was at most 25 days ago, else the next one (the clock is moved past it).
 */
async function dstDay(sb: RunningSandbox, which: "recent" | "next"): Promise<{ day: string; hours: number }> {
  const now = Temporal.Instant.fromEpochMilliseconds(sb.sandbox.clock.nowMs()).toZonedDateTimeISO(NY);
  const prev = now.getTimeZoneTransition("previous");
  let t =
    which === "recent" && prev && now.since(prev).total({ unit: "days" }) <= 25
      ? prev
      : now.getTimeZoneTransition("next")!;
  if (Temporal.ZonedDateTime.compare(t, now) > 0) {
    await advanceTo(sb, t.add({ days: 3 }).epochMilliseconds);
    t = t.withTimeZone(NY);
  }
  const day = t.toPlainDate();
  const hours = day
    .toZonedDateTime(NY)
    .until(day.add({ days: 1 }).toZonedDateTime(NY))
    .total({ unit: "hours" });
  return { day: day.toString(), hours };
}

describe("report days across a DST change", () => {
  it.each(["recent", "next"] as const)(
    "counts by local day on a 23- or 25-hour day (%s change)",
    async (which) => {
      await withSandbox({}, async ({ sb }) => {
        const { day, hours } = await dstDay(sb, which);
        expect([23, 25]).toContain(hours);
        const prev = Temporal.PlainDate.from(day).subtract({ days: 1 }).toString();
        const next = Temporal.PlainDate.from(day).add({ days: 1 }).toString();
        const c = await makeCampaign(sb, {
          ...TRAFFIC,
          baseGs1: SEED.offers.oats,
          codeLimit: 1000,
          dates: { ...TRAFFIC.dates, from: prev, through: next },
          creators: ["cr-0001"],
        });
        await simulate(sb, { campaign: c.id, claims: 10, at: instantIn(NY, prev, "12:00:00") });
        // 00:30 and 23:30 local on the DST day, 00:30 local the day after; 23:59:59 the day before.
        await simulate(sb, { campaign: c.id, redemptions: 1, at: instantIn(NY, prev, "23:59:59") });
        await simulate(sb, { campaign: c.id, redemptions: 1, at: instantIn(NY, day, "00:30:00") });
        await simulate(sb, { campaign: c.id, redemptions: 2, at: instantIn(NY, day, "23:30:00") });
        await simulate(sb, { campaign: c.id, redemptions: 3, at: instantIn(NY, next, "00:30:00") });
        const r = strict(
          strictReports.CampaignReport,
          await http(sb, "GET", `/campaigns/${c.id}/report?from=${prev}&through=${next}`),
        );
        expect(r.range.timeZone).toBe(NY);
        expect(r.daily.map((d) => [d.date, d.verifiedRedemptions])).toEqual([
          [prev, 1],
          [day, 3],
          [next, 3],
        ]);
        expect(r.daily[0]!.codesIssued).toBe(10);
        const only = strict(
          strictRedemptions.RedemptionRangePage,
          await http(sb, "GET", `/redemptions?from=${day}&through=${day}`),
        );
        expect(only.totalCount).toBe(3);
        const s = strict(
          strictReports.Summary,
          await http(sb, "GET", `/reports/summary?from=${day}&through=${day}`),
        );
        expect(s.totals.verifiedRedemptions).toBe(3);
        // A preset on the moved clock is computed in the time zone too.
        const week = strict(strictReports.Summary, await http(sb, "GET", "/reports/summary?preset=7d"));
        expect(week.range.through).toBe(dayIn(sb, NY, 0));
      });
    },
  );
});

describe("commission rounding", () => {
  it("rounds each estimate once to four decimals, ties to even", async () => {
    await withSandbox({}, async ({ sb }) => {
      const cases: [string, string, number, number][] = [
        // rate, price, redemptions, expected
        ["0.125", "1.00", 1, 0.125],
        ["0.0001", "0.5", 1, 0], // 0.00005 → 0.0000
        ["0.0003", "0.5", 1, 0.0002], // 0.00015 → 0.0002
        ["0.0005", "0.5", 1, 0.0002], // 0.00025 → 0.0002
        ["0.0001", "0.5", 3, 0.0002], // 0.00015 once, not 3 × 0.0000
        ["0.3333", "0.03", 1, 0.01], // 0.009999 → 0.0100
      ];
      const ids: string[] = [];
      for (const [rate, price, n] of cases) {
        const c = await makeCampaign(sb, {
          ...TRAFFIC,
          commission: { ...TRAFFIC.commission, rate: rate, estimatedUnitSalePrice: price },
          creators: ["cr-0001"],
        });
        ids.push(c.id);
        await simulate(sb, { campaign: c.id, claims: n, redemptions: n });
      }
      let sum = 0;
      for (const [k, id] of ids.entries()) {
        const r = strict(
          strictReports.CampaignReport,
          await http(sb, "GET", `/campaigns/${id}/report?preset=today`),
        );
        expect(r.totals.verifiedRedemptions).toBe(cases[k]![2]);
        expect(r.totals.estimatedCommission, `case ${k}`).toBe(cases[k]![3]);
        expect(r.creators.items[0]!.estimatedCommission).toBe(cases[k]![3]);
        sum += cases[k]![3];
      }
      // All in one brand: the brand figure and the total are exact sums of the campaign figures.
      const s = strict(strictReports.Summary, await http(sb, "GET", "/reports/summary?preset=today"));
      expect(s.totals.estimatedCommission).toBe(Number(sum.toFixed(4)));
      expect(s.brands).toHaveLength(1);
      expect(s.brands[0]!.estimatedCommission).toBe(s.totals.estimatedCommission);
      // Sales value: unit prices × counts (1 + 0.5 + 0.5 + 0.5 + 1.5 + 0.03).
      expect(s.totals.estimatedSalesValue).toBe(4.03);
    });
  });
});
