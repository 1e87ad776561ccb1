// Control routes of traffic: one link open (/_sandbox/views) and the organization's reporting time
// zone and alert recipients (/_sandbox/organization); link views counted once per origin per link
// per reporting day.
import { describe, expect, it } from "vitest";
import { http } from "../helpers/sandbox.js";
import { expectError } from "./core-util.js";
import { instantIn } from "./traffic-util.js";
import { NY, TRAFFIC, dayIn, makeCampaign, simulate } from "../helpers/fixtures.js";
import { withSandbox } from "../helpers/harness.js";

describe("link views", () => {
  it("counts a link open once per network origin per link per reporting day", async () => {
    await withSandbox({}, async ({ sb }) => {
      const c = await makeCampaign(sb, { ...TRAFFIC, creators: ["cr-0001", "cr-0002"] });
      const link = (await http(sb, "GET", `/campaigns/${c.id}/creators/cr-0001`)).body;
      const other = (await http(sb, "GET", `/campaigns/${c.id}/creators/cr-0002`)).body;
      const open = (shortCode: string, origin?: string) =>
        http(sb, "POST", "/views", { control: true, body: { shortCode, ...(origin ? { origin } : {}) } });
      expect((await open(link.shortCode, "198.51.100.7")).status).toBe(200);
      expect((await open(link.shortCode.replace("-", "").toLowerCase(), "198.51.100.7")).status).toBe(200);
      const own = await open(link.shortCode); // the caller's own address
      expect(own.body.origin).toMatch(/127\.0\.0\.1|::1/);
      await open(other.shortCode, "198.51.100.7");
      const today = async () =>
        (await http(sb, "GET", `/campaigns/${c.id}/report?preset=7d`)).body as {
          totals: { linkViews: number };
          creators: { items: { creator: { externalId: string }; linkViews: number }[] };
        };
      let r = await today();
      expect(r.totals.linkViews).toBe(3);
      expect(r.creators.items.find((x) => x.creator.externalId === "cr-0001")!.linkViews).toBe(2);
      // The same origin on another reporting day counts again.
      await http(sb, "POST", "/advance", { control: true, body: { duration: "1d" } });
      await open(link.shortCode, "198.51.100.7");
      r = await today();
      expect(r.totals.linkViews).toBe(4);
      expectError(await open("ZZZZ-ZZZZ"), 404, "not_found");
      expectError(await http(sb, "POST", "/views", { control: true, body: {} }), 400, "validation_failed");
    });
  });

  it("simulated views from one origin on one day count once per link", async () => {
    await withSandbox({}, async ({ sb }) => {
      const c = await makeCampaign(sb, {
        ...TRAFFIC,
        creators: ["cr-0001"],
        dates: { ...TRAFFIC.dates, from: dayIn(sb, NY, -3) },
      });
      const d = dayIn(sb, NY, -1);
      await simulate(sb, {
        campaign: c.id,
        views: 25,
        origin: "203.0.113.9",
        at: instantIn(NY, d, "08:00:00"),
      });
      await simulate(sb, { campaign: c.id, views: 40, origins: 1, at: instantIn(NY, d, "09:00:00") });
      const r = (await http(sb, "GET", `/campaigns/${c.id}/report?from=${d}&through=${d}`)).body;
      // 203.0.113.9 and the single pooled origin 203.0.113.1.
      expect(r.totals.linkViews).toBe(2);
    });
  });
});

describe("organization control route", () => {
  it("sets the reporting time zone (GET /me shows it) and refuses unknown zones", async () => {
    await withSandbox({}, async ({ sb }) => {
      const res = await http(sb, "POST", "/organization", {
        control: true,
        body: { reportingTimeZone: "Asia/Tokyo" },
      });
      expect(res.status).toBe(200);
      expect((await http(sb, "GET", "/me")).body.organization.reportingTimeZone).toBe("Asia/Tokyo");
      expect((await http(sb, "GET", "/reports/summary")).body.range.timeZone).toBe("Asia/Tokyo");
      expectError(
        await http(sb, "POST", "/organization", {
          control: true,
          body: { reportingTimeZone: "Mars/Olympus" },
        }),
        400,
        "validation_failed",
        ["reportingTimeZone"],
      );
      expectError(
        await http(sb, "POST", "/organization", { control: true, body: { reportingTimeZone: "+05:00" } }),
        400,
        "validation_failed",
        ["reportingTimeZone"],
      );
    });
  });
});
