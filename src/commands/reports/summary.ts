import { summaryReport } from "../../api/reports.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { type Column, printList, printRecord } from "../../io/render.js";
import type { SummaryBrand } from "../../spec/reports.js";
import { resolveBrandFilter } from "../campaigns/resolve.js";
import { pct, rangeLine } from "./format.js";

const BRAND_COLUMNS: Column<SummaryBrand>[] = [
  { header: "brand", value: (b) => b.brand.name },
  { header: "campaigns", value: (b) => b.campaigns },
  { header: "active", value: (b) => b.activeCampaigns },
  { header: "linkViews", value: (b) => b.linkViews },
  { header: "codesIssued", value: (b) => b.codesIssued },
  { header: "verified", value: (b) => b.verifiedRedemptions },
  { header: "redemptionRate", value: (b) => pct(b.redemptionRate) },
  { header: "estCommission", value: (b) => b.estimatedCommission },
];

export interface ReportsSummaryOptions extends RangeFlags {
  brand?: string | undefined;
}

export async function reportsSummaryRun(o: ReportsSummaryOptions, ctx: Context): Promise<void> {
  const range = checkRange(o);
  const api = await ctx.api();
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  const s = await summaryReport(api, { ...range, brandId });
  if (ctx.io.json) {
    ctx.io.outJson(s);
    return;
  }
  const t = s.totals;
  printRecord(ctx.io, s, [
    ["range", rangeLine(s.range)],
    ["campaigns", t.campaigns],
    ["activeCampaigns", t.activeCampaigns],
    ["linkViews", t.linkViews],
    ["codesIssued", t.codesIssued],
    ["verifiedRedemptions", t.verifiedRedemptions],
    ["redemptionRate", pct(t.redemptionRate)],
    ["estimatedCommission", t.estimatedCommission],
    ["estimatedSalesValue", t.estimatedSalesValue],
  ]);
  ctx.io.out("\n");
  printList(ctx.io, s.brands, BRAND_COLUMNS, "No brands in this summary.");
}
