import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { reportsCampaignRun } from "../../src/commands/reports/campaign.js";
import { reportsCreatorsRun } from "../../src/commands/reports/creators.js";
import { reportsSummaryRun } from "../../src/commands/reports/summary.js";
import { exitCodeFor } from "../../src/main.js";
import { FEED, makeCampaign, simulate } from "../helpers/fixtures.js";
import { http, tempDir } from "../helpers/sandbox.js";
import { useSandbox } from "../helpers/harness.js";

describe("reports commands", () => {
  const box = useSandbox();
  let campaignId: string;
  const ref = "report-test";
  beforeAll(async () => {
    campaignId = (await makeCampaign(box.sb, { ...FEED, externalReference: ref })).id;
    await simulate(box.sb, { campaign: campaignId, views: 400, claims: 120, redemptions: 90, seed: 3 });
  });

  it("summary: totals and brands as TSV when piped, the API object with --json", async () => {
    const a = box.context();
    await reportsSummaryRun({ preset: "7d" }, a.ctx);
    await a.ctx.close();
    // One table per section (issue 26): totals as a one-row table, a blank line, the brands.
    const [totals, brands, ...more] = a.stdout().trimEnd().split("\n\n");
    expect(more).toEqual([]);
    const [head, row, ...rest] = totals!.split("\n").map((l) => l.split("\t"));
    expect(rest).toEqual([]);
    expect(head![0]).toBe("range");
    expect(row![head!.indexOf("verifiedRedemptions")]).toBe("90");
    expect(brands).toMatch(
      /^brand\.name\tcampaigns\tactiveCampaigns\t.*\tverifiedRedemptions\tredemptionRate\testimatedCommission$/m,
    );
    // Rates as the API's fractions, not percentages, when piped.
    expect(row![head!.indexOf("redemptionRate")]).toMatch(/^(0|1)(\.\d+)?$/);
    expect(a.stdout()).not.toContain("%");
    const b = box.context({ globals: { json: true } });
    await reportsSummaryRun({ preset: "7d" }, b.ctx);
    await b.ctx.close();
    const s = JSON.parse(b.stdout());
    expect(s.totals.verifiedRedemptions).toBe(90);
    expect(s.range.preset).toBe("7d");
  });

  it("campaign report piped: one TSV table per section, plain numbers; a terminal shows words, % and $ (issue 26)", async () => {
    const piped = box.context();
    await reportsCampaignRun({ campaign: ref, preset: "7d" }, piped.ctx);
    await piped.ctx.close();
    const [totals, daily, creators, ...more] = piped.stdout().trimEnd().split("\n\n");
    expect(more).toEqual([]);
    const [head, row] = totals!.split("\n").map((l) => l.split("\t"));
    expect(totals!.split("\n")).toHaveLength(2);
    expect(head!.slice(0, 3)).toEqual(["campaign", "brand", "range"]);
    expect(row![head!.indexOf("redemptionRate")]).toMatch(/^(0|1)(\.\d+)?$/);
    expect(daily!.split("\n")[0]).toBe("date\tlinkViews\tcodesIssued\tverifiedRedemptions");
    expect(creators!.split("\n")[0]).toBe(
      "rank\tcreator.externalId\tcreator.name\tactive\tlinkViews\tcodesIssued\tverifiedRedemptions\tconversionRate\testimatedCommission",
    );
    expect(piped.stdout()).not.toMatch(/%|\$/);
    const tty = box.context({ tty: true });
    await reportsCampaignRun({ campaign: ref, preset: "7d" }, tty.ctx);
    await tty.ctx.close();
    expect(tty.stdout()).toMatch(/^redemptionRate +\d+\.\d%$/m);
    expect(tty.stdout()).toMatch(/^estimatedCommission +\$[\d,]+\.\d\d$/m);
    expect(tty.stdout()).toMatch(/^Rank {2,}Creator {2,}Name /m);
  });

  it("campaign report by externalReference: chart and ranked creators on a terminal, null ratios as '-'", async () => {
    const a = box.context({ tty: true });
    await reportsCampaignRun({ campaign: ref, preset: "7d" }, a.ctx);
    await a.ctx.close();
    const out = a.stdout();
    expect(out).toContain("Verified redemptions per day");
    expect(out).toMatch(/█/);
    expect(out).toContain("Creators");
    expect(out).toMatch(/^1 {2,}cr-\d{4} {2,}/m);
    // A range without activity: ratios are null, shown as "-" on a terminal and null in JSON.
    const quiet = box.context({ tty: true });
    await reportsCampaignRun({ campaign: ref, from: "2026-01-01", through: "2026-01-31" }, quiet.ctx);
    await quiet.ctx.close();
    expect(quiet.stdout()).toMatch(/redemptionRate\s+-$/m);
    const quietJson = box.context({ globals: { json: true } });
    await reportsCampaignRun({ campaign: ref, from: "2026-01-01", through: "2026-01-31" }, quietJson.ctx);
    await quietJson.ctx.close();
    expect(JSON.parse(quietJson.stdout()).totals.redemptionRate).toBeNull();
    const b = box.context({ globals: { json: true } });
    await reportsCampaignRun(
      { campaign: campaignId, from: "2026-01-01", through: "2026-12-31", allCreators: true },
      b.ctx,
    );
    await b.ctx.close();
    const r = JSON.parse(b.stdout());
    expect(r.range.preset).toBe("custom");
    expect(r.daily).toHaveLength(365);
    const ranks = r.creators.items.map((c: { rank: number }) => c.rank);
    expect(ranks).toEqual([...ranks].sort((x: number, y: number) => x - y));
    expect(r.creators.items.length).toBe(r.creators.totalCount);
  });

  it("creator counts as CSV across pages, no 366-day cap", async () => {
    const out = join(tempDir(), "counts.csv");
    const a = box.context();
    await reportsCreatorsRun({ from: "2025-06-01", through: "2026-12-31", out }, a.ctx);
    await a.ctx.close();
    const rows = parse(readFileSync(out), { columns: true }) as Record<string, string>[];
    const api = await http(
      box.sb,
      "GET",
      "/reports/creator-counts?from=2025-06-01&through=2026-12-31&pageSize=1",
    );
    expect(rows.length).toBe(api.body.totalCount);
    expect(rows.reduce((n, r) => n + Number(r.verifiedRedemptions), 0)).toBe(90);
    expect(a.stderr()).toMatch(/Wrote \d+ creator-campaign rows/);
  });

  it("creator counts piped without --format: TSV with the CSV's names and plain numbers (issue 26)", async () => {
    const a = box.context();
    await reportsCreatorsRun({ from: "2025-06-01", through: "2026-12-31" }, a.ctx);
    await a.ctx.close();
    const [head, ...rows] = a.stdout().trimEnd().split("\n");
    expect(head).toBe(
      "creatorExternalId\tcreatorName\tcampaignId\tcampaignExternalReference\tcampaignName\tbrandId\tbrandName\tverifiedRedemptions\testimatedCommission\tcommissionRate\testimatedUnitSalePrice",
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.split("\t").length === 11)).toBe(true);
    expect(a.stdout()).not.toMatch(/[$%]/);
  });

  it("a bad range is a usage error before any request", async () => {
    const a = box.context();
    await expect(
      reportsSummaryRun({ preset: "7d", from: "2026-01-01", through: "2026-01-02" }, a.ctx),
    ).rejects.toSatisfy((e) => exitCodeFor(e) === 2);
    await expect(reportsSummaryRun({ from: "2025-01-01", through: "2026-01-02" }, a.ctx)).rejects.toSatisfy(
      (e) => exitCodeFor(e) === 2,
    );
    await expect(
      reportsCampaignRun({ campaign: ref, from: "2026-02-30", through: "2026-03-01" }, a.ctx),
    ).rejects.toSatisfy((e) => exitCodeFor(e) === 2);
  });

  it("an unknown campaign is not found (exit 5)", async () => {
    const a = box.context();
    await expect(reportsCampaignRun({ campaign: "no-such-ref" }, a.ctx)).rejects.toSatisfy(
      (e) => exitCodeFor(e) === 5,
    );
  });
});
