import { dollars, percent } from "../../io/money-words.js";
import { campaignReport } from "../../api/reports.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { bars, sparkline } from "../../io/chart.js";
import { style } from "../../io/colors.js";
import { type Column, printList, printRecord, type RecordField } from "../../io/render.js";
import { fmt } from "../../io/words.js";
import type { CampaignReport, CampaignReportCreator } from "../../spec/reports.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { checkSection, printTotals, rangeLine } from "./format.js";

export interface CampaignReportOptions extends RangeFlags {
  /** The campaign: id or external reference. */
  campaign: string;
  allCreators?: boolean | undefined;
  /** --section: one part of the report on its own. */
  section?: string | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

/** The creators: the API's names in TSV and CSV, words in a table. */
const CREATOR_COLUMNS: Column<CampaignReportCreator>[] = [
  { header: "rank", value: (c) => c.rank },
  { header: "creator.externalId", title: "Creator", value: (c) => c.creator.externalId, truncate: true },
  { header: "creator.name", title: "Name", value: (c) => c.creator.name, truncate: true },
  { header: "active", title: "Link active", value: (c) => c.active, drop: 1 },
  { header: "linkViews", value: (c) => c.linkViews, drop: 3 },
  { header: "codesIssued", value: (c) => c.codesIssued, drop: 2 },
  { header: "verifiedRedemptions", title: "Verified", value: (c) => c.verifiedRedemptions },
  { header: "conversionRate", title: "Conversion", value: (c) => c.conversionRate, kind: percent },
  {
    header: "estimatedCommission",
    title: "Est. commission",
    value: (c) => c.estimatedCommission,
    kind: dollars,
  },
];

/** Reads the report; with --all-creators every creators page is read and merged into one. */
async function fetchCampaignReport(
  ctx: Context,
  idOrRef: string,
  o: CampaignReportOptions,
): Promise<CampaignReport> {
  const range = checkRange(o);
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, idOrRef);
  const first = await campaignReport(api, campaign.id, {
    ...range,
    page: o.allCreators ? 0 : o.page,
    pageSize: o.allCreators ? 200 : o.pageSize,
  });
  if (!o.allCreators) return first;
  const items = [...first.creators.items];
  for (let page = 1; page * first.creators.pageSize < first.creators.totalCount; page++) {
    const next = await campaignReport(api, campaign.id, {
      ...range,
      page,
      pageSize: first.creators.pageSize,
    });
    if (next.creators.items.length === 0) break;
    items.push(...next.creators.items);
  }
  return { ...first, creators: { ...first.creators, items, page: 0, pageSize: items.length } };
}

const DAILY_COLUMNS: Column<CampaignReport["daily"][number]>[] = [
  { header: "date", value: (d) => d.date },
  { header: "linkViews", value: (d) => d.linkViews },
  { header: "codesIssued", value: (d) => d.codesIssued },
  { header: "verifiedRedemptions", value: (d) => d.verifiedRedemptions },
];

const SECTIONS = ["totals", "daily", "creators"] as const;

function totalsFields(r: CampaignReport): RecordField[] {
  const t = r.totals;
  return [
    ["campaign", `${r.campaign.name} (${r.campaign.externalReference ?? r.campaign.id})`],
    ["brand", r.brand.name],
    ["range", rangeLine(r.range)],
    ["linkViews", t.linkViews],
    ["codesIssued", t.codesIssued],
    ["verifiedRedemptions", t.verifiedRedemptions],
    ["redemptionRate", t.redemptionRate, percent],
    ["estimatedCommission", t.estimatedCommission, dollars],
    ["commissionRate", r.commission.rate, percent],
    ["estimatedUnitSalePrice", r.commission.estimatedUnitSalePrice, dollars],
    ["estimatedPerRedemption", r.commission.estimatedPerRedemption, dollars],
  ];
}

/** One part of the report on its own, in any format (--section). */
function printSection(ctx: Context, r: CampaignReport, section: (typeof SECTIONS)[number]): void {
  if (section === "daily") printList(ctx.io, r.daily, DAILY_COLUMNS, "No days in this range.");
  else if (section === "creators")
    printList(ctx.io, r.creators.items, CREATOR_COLUMNS, "No creators on this campaign.");
  else {
    const { daily: _daily, creators: _creators, ...totals } = r;
    printTotals(ctx.io, totals, totalsFields(r));
  }
}

/** The daily chart of a terminal: bars for a month or less, a sparkline beyond. */
function dailyChart(ctx: Context, r: CampaignReport): string {
  const verified = r.daily.map((d) => d.verifiedRedemptions);
  if (r.daily.length <= 31) {
    const room = (ctx.io.width ?? 80) - 10 - 2 - 1 - String(Math.max(0, ...verified)).length;
    return bars(
      r.daily.map((d) => ({ label: d.date, value: d.verifiedRedemptions })),
      Math.max(10, Math.min(40, room)),
    );
  }
  return `${r.daily[0]?.date} ${sparkline(verified)} ${r.daily.at(-1)?.date}  (max ${Math.max(0, ...verified)}/day)`;
}

export async function reportsCampaignRun(o: CampaignReportOptions, ctx: Context): Promise<void> {
  const section = checkSection(ctx.io, o.section, SECTIONS);
  const r = await fetchCampaignReport(ctx, o.campaign, o);
  const c = r.creators;
  if (
    !o.allCreators &&
    c.totalCount > (c.page + 1) * c.pageSize &&
    section !== "totals" &&
    section !== "daily"
  ) {
    ctx.io.err(
      `Showing creators ${fmt(c.page * c.pageSize + 1)}-${fmt(c.page * c.pageSize + c.items.length)} of ${fmt(c.totalCount)}; use --all-creators or --page N.`,
    );
  }
  if (section) printSection(ctx, r, section);
  else if (ctx.io.json) ctx.io.outJson(r);
  else printWholeReport(ctx, r);
}

/**
 * Totals, chart and creators (a terminal); TSV: one table per section (totals as a one-row table,
 * daily, creators), a blank line between them.
 */
function printWholeReport(ctx: Context, r: CampaignReport): void {
  if (ctx.io.format === "table") {
    printRecord(ctx.io, r, totalsFields(r));
    ctx.io.out(`\n${style(ctx.io, "bold", "Verified redemptions per day")}\n`);
    ctx.io.out(`${dailyChart(ctx, r)}\n`);
    ctx.io.out(`\n${style(ctx.io, "bold", "Creators")}\n`);
  } else {
    printTotals(ctx.io, r, totalsFields(r));
    ctx.io.out("\n");
    printList(ctx.io, r.daily, DAILY_COLUMNS, "No days in this range.");
    ctx.io.out("\n");
  }
  printList(ctx.io, r.creators.items, CREATOR_COLUMNS, "No creators on this campaign.");
}
