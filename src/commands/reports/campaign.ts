import { campaignReport } from "../../api/reports.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { bars, sparkline } from "../../io/chart.js";
import { style } from "../../io/colors.js";
import { type Column, printList, printRecord } from "../../io/render.js";
import type { CampaignReport, CampaignReportCreator } from "../../spec/reports.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { pct, rangeLine } from "./format.js";

export interface CampaignReportOptions extends RangeFlags {
  /** The campaign: id or external reference. */
  campaign: string;
  allCreators?: boolean | undefined;
  page?: number | undefined;
  pageSize?: number | undefined;
}

const CREATOR_COLUMNS: Column<CampaignReportCreator>[] = [
  { header: "rank", value: (c) => c.rank },
  { header: "externalId", value: (c) => c.creator.externalId },
  { header: "name", value: (c) => c.creator.name },
  { header: "linkActive", value: (c) => c.active },
  { header: "linkViews", value: (c) => c.linkViews },
  { header: "codesIssued", value: (c) => c.codesIssued },
  { header: "verified", value: (c) => c.verifiedRedemptions },
  { header: "conversion", value: (c) => pct(c.conversionRate) },
  { header: "estCommission", value: (c) => c.estimatedCommission },
];

/** Reads the report; with --all-creators every creators page is read and merged into one. */
export async function fetchCampaignReport(
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

export async function reportsCampaignRun(o: CampaignReportOptions, ctx: Context): Promise<void> {
  const r = await fetchCampaignReport(ctx, o.campaign, o);
  if (ctx.io.json) {
    ctx.io.outJson(r);
    return;
  }
  const t = r.totals;
  printRecord(ctx.io, r, [
    ["campaign", `${r.campaign.name} (${r.campaign.externalReference ?? r.campaign.id})`],
    ["brand", r.brand.name],
    ["range", rangeLine(r.range)],
    ["linkViews", t.linkViews],
    ["codesIssued", t.codesIssued],
    ["verifiedRedemptions", t.verifiedRedemptions],
    ["redemptionRate", pct(t.redemptionRate)],
    ["estimatedCommission", t.estimatedCommission],
    ["commissionRate", r.commission.rate],
    ["estimatedUnitSalePrice", r.commission.estimatedUnitSalePrice],
    ["estimatedPerRedemption", r.commission.estimatedPerRedemption],
  ]);
  if (ctx.io.stdoutIsTTY) {
    const verified = r.daily.map((d) => d.verifiedRedemptions);
    ctx.io.out(`\n${style(ctx.io, "bold", "Verified redemptions per day")}\n`);
    if (r.daily.length <= 31) {
      ctx.io.out(`${bars(r.daily.map((d) => ({ label: d.date, value: d.verifiedRedemptions })))}\n`);
    } else {
      ctx.io.out(
        `${r.daily[0]?.date} ${sparkline(verified)} ${r.daily.at(-1)?.date}  (max ${Math.max(0, ...verified)}/day)\n`,
      );
    }
    ctx.io.out(`\n${style(ctx.io, "bold", "Creators")}\n`);
  } else {
    ctx.io.out("\n");
  }
  printList(ctx.io, r.creators.items, CREATOR_COLUMNS, "No creators on this campaign.");
  const c = r.creators;
  if (!o.allCreators && c.totalCount > (c.page + 1) * c.pageSize) {
    ctx.io.err(
      `Showing creators ${c.page * c.pageSize + 1}-${c.page * c.pageSize + c.items.length} of ${c.totalCount}; use --all-creators or --page N.`,
    );
  }
}
