// GET /redemptions range mode: days in the reporting time zone, filters, paging, asOf, range rules.
import { beforeAll, describe, expect, it } from "vitest";
import { strictRedemptions } from "../../src/spec/redemptions.js";
import { http, type RunningSandbox } from "../helpers/sandbox.js";
import { expectError, strict } from "./core-util.js";
import { instantIn } from "./traffic-util.js";
import { dayIn, expectStampedBetween, makeCampaign, NY, simulate, TRAFFIC } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const range = async (sb: RunningSandbox, q: string) =>
  strict(strictRedemptions.RedemptionRangePage, await http(sb, "GET", `/redemptions?${q}`));

describe("redemptions range mode", () => {
  const s = useSandbox();
  let a: { id: string };
  let b: { id: string };
  let d1: string;
  let d2: string;
  let sodaBrand: string;
  beforeAll(async () => {
    d1 = dayIn(s.sb, NY, -1);
    d2 = dayIn(s.sb, NY, -2);
    a = await makeCampaign(s.sb, {
      ...TRAFFIC,
      dates: { ...TRAFFIC.dates, from: dayIn(s.sb, NY, -5) },
      externalReference: "A",
    });
    b = await makeCampaign(s.sb, {
      ...TRAFFIC,
      baseGs1: SEED.offers.sodaRetail,
      codeLimit: 20,
      retailer: { emailDomain: "freshmart.example", name: "FreshMart" },
      dates: { ...TRAFFIC.dates, from: dayIn(s.sb, NY, -1) },
      externalReference: "B",
    });
    sodaBrand = (await s.http("GET", `/offers/${SEED.offers.sodaRetail}`)).body.brand.id;
    await simulate(s.sb, {
      campaign: "A",
      claims: 10,
      testCodes: 2,
      at: instantIn(NY, dayIn(s.sb, NY, -3), "12:00:00"),
    });
    await simulate(s.sb, { campaign: "B", claims: 3, at: instantIn(NY, d1, "00:00:00") });
    await simulate(s.sb, { campaign: "A", redemptions: 2, at: instantIn(NY, d2, "12:00:00") });
    await simulate(s.sb, { campaign: "A", redemptions: 3, at: instantIn(NY, d1, "12:00:00") });
    await simulate(s.sb, { campaign: "A", testRedemptions: 1, at: instantIn(NY, d1, "09:00:00") });
    // Last second of d1 in New York (the next UTC day) and first second of d1.
    await simulate(s.sb, { campaign: "B", redemptions: 1, at: instantIn(NY, d1, "23:59:59") });
    await simulate(s.sb, { campaign: "B", redemptions: 1, at: instantIn(NY, d1, "00:00:01") });
  });

  it("filters by redeemedAt day in the reporting time zone, newest first", async () => {
    const r = await range(s.sb, `from=${d1}&through=${d1}`);
    expect(r.range).toEqual({ from: d1, through: d1, timeZone: NY, preset: "custom" });
    expect(r.totalCount).toBe(6);
    expect(r.items.map((x) => x.redeemedAt)).toEqual([
      instantIn(NY, d1, "23:59:59"),
      ...Array(3).fill(instantIn(NY, d1, "12:00:00")),
      instantIn(NY, d1, "09:00:00"),
      instantIn(NY, d1, "00:00:01"),
    ]);
    expect(r).toMatchObject({ page: 0, pageSize: 50 });
    const two = await range(s.sb, `from=${d2}&through=${d1}`);
    expect(two.totalCount).toBe(8);
    // In UTC the late New York redemption falls on the next day.
    await s.http("POST", "/organization", { control: true, body: { reportingTimeZone: "UTC" } });
    const utc = await range(s.sb, `from=${d1}&through=${d1}`);
    expect(utc.range.timeZone).toBe("UTC");
    expect(utc.items.map((x) => x.redeemedAt)).not.toContain(instantIn(NY, d1, "23:59:59"));
    await s.http("POST", "/organization", { control: true, body: { reportingTimeZone: NY } });
  });

  it("filters by campaign, brand and counting state", async () => {
    const inB = await range(s.sb, `from=${d2}&through=${d1}&campaignId=${b.id}`);
    expect(inB.totalCount).toBe(2);
    expect(inB.items[0]!.retailer).toEqual({ emailDomain: "freshmart.example", name: "FreshMart" });
    expect((await range(s.sb, `from=${d2}&through=${d1}&brandId=${sodaBrand}`)).totalCount).toBe(2);
    expect((await range(s.sb, `from=${d2}&through=${d1}&campaignId=${a.id}`)).totalCount).toBe(6);
    const tests = await range(s.sb, `from=${d2}&through=${d1}&countingState=test_code`);
    expect(tests.totalCount).toBe(1);
    expect(tests.items[0]!.creator).toBeNull();
    const counted = await range(s.sb, `from=${d2}&through=${d1}&countingState=counted`);
    expect(counted.totalCount).toBe(7);
    await simulate(s.sb, { exclude: [counted.items[0]!.id, tests.items[0]!.id] });
    expect((await range(s.sb, `from=${d2}&through=${d1}&countingState=excluded`)).totalCount).toBe(2);
    expect((await range(s.sb, `from=${d2}&through=${d1}&countingState=test_code`)).totalCount).toBe(0);
    expect((await range(s.sb, `from=${d2}&through=${d1}&countingState=counted`)).totalCount).toBe(6);
    await simulate(s.sb, { restore: [counted.items[0]!.id, tests.items[0]!.id] });
    expectError(await s.http("GET", "/redemptions?countingState=bogus"), 400, "validation_failed", [
      "countingState",
    ]);
    // Another organization sees none of them.
    const other = await s.http("GET", `/redemptions?from=${d2}&through=${d1}`, {
      key: s.sb.testKeys.otherOrgKey,
    });
    expect(other.body.totalCount).toBe(0);
  });

  it("pages with the paging rules", async () => {
    const p0 = await range(s.sb, `from=${d2}&through=${d1}&pageSize=3`);
    const p1 = await range(s.sb, `from=${d2}&through=${d1}&pageSize=3&page=1`);
    const p2 = await range(s.sb, `from=${d2}&through=${d1}&pageSize=3&page=2`);
    expect([p0.items.length, p1.items.length, p2.items.length]).toEqual([3, 3, 2]);
    expect(p2.totalCount).toBe(8);
    const ids = [...p0.items, ...p1.items, ...p2.items].map((x) => x.id);
    expect(new Set(ids).size).toBe(8);
    expect((await range(s.sb, `from=${d2}&through=${d1}&pageSize=500`)).pageSize).toBe(200);
    expect(await range(s.sb, `from=${d2}&through=${d1}&pageSize=0&page=-2`)).toMatchObject({
      page: 0,
      pageSize: 50,
    });
  });

  it("defaults to the 30d preset and accepts each preset", async () => {
    const r = await range(s.sb, `campaignId=${a.id}`);
    expect(r.range).toEqual({
      from: dayIn(s.sb, NY, -29),
      through: dayIn(s.sb, NY, 0),
      timeZone: NY,
      preset: "30d",
    });
    expect(r.totalCount).toBe(6);
    for (const p of ["today", "7d", "30d", "90d", "this-month", "last-month"])
      expect((await range(s.sb, `preset=${p}`)).range.preset).toBe(p);
    expect((await range(s.sb, "preset=today")).totalCount).toBe(0);
  });

  it("pins asOf: later pages leave out redemptions recorded after it", async () => {
    const t0 = s.sb.sandbox.clock.iso();
    const first = await range(s.sb, `from=${d2}&through=${d1}&pageSize=5`);
    expectStampedBetween(first.asOf, t0, s.sb.sandbox.clock.iso());
    await s.http("POST", "/advance", { control: true, body: { duration: "1m" } });
    await simulate(s.sb, { campaign: "A", redemptions: 4, at: instantIn(NY, d1, "18:00:00") });
    const pinned = await range(s.sb, `from=${d2}&through=${d1}&pageSize=5&page=1&asOf=${first.asOf}`);
    expect(pinned.asOf).toBe(first.asOf);
    expect(pinned.totalCount).toBe(8);
    const all = [...first.items, ...pinned.items].map((x) => x.id);
    expect(new Set(all).size).toBe(8);
    const fresh = await range(s.sb, `from=${d2}&through=${d1}&pageSize=5`);
    expect(fresh.totalCount).toBe(12);
    expectError(await s.http("GET", "/redemptions?asOf=yesterday"), 400, "validation_failed", ["asOf"]);
  });

  it("accepts 366 days and refuses 367", async () => {
    const through = dayIn(s.sb, NY, 0);
    const from366 = dayIn(s.sb, NY, -365);
    const from367 = dayIn(s.sb, NY, -366);
    expect((await range(s.sb, `from=${from366}&through=${through}`)).totalCount).toBe(12);
    expectError(
      await s.http("GET", `/redemptions?from=${from367}&through=${through}`),
      400,
      "validation_failed",
      ["through"],
    );
  });

  it("refuses mixed feed and range parameters, preset with dates, and bad dates", async () => {
    expectError(
      await s.http("GET", `/redemptions?from=${d1}&through=${d1}&limit=10`),
      400,
      "validation_failed",
      ["limit"],
    );
    expectError(await s.http("GET", "/redemptions?after=abc&page=1"), 400, "validation_failed", ["after"]);
    expectError(
      await s.http("GET", `/redemptions?preset=7d&from=${d1}&through=${d1}`),
      400,
      "validation_failed",
      ["preset"],
    );
    expectError(
      await s.http("GET", "/redemptions?from=2026-02-30&through=2026-03-01"),
      400,
      "validation_failed",
      ["from"],
    );
    expectError(await s.http("GET", `/redemptions?from=${d1}&through=${d2}`), 400, "validation_failed", [
      "through",
    ]);
    expectError(await s.http("GET", `/redemptions?from=${d1}`), 400, "validation_failed", ["through"]);
    expectError(await s.http("GET", "/redemptions?preset=yesterday"), 400, "validation_failed", ["preset"]);
  });
});
