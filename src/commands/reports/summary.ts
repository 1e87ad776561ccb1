import { dollars, percent } from "../../io/money-words.js";
import { summaryReport } from "../../api/reports.js";
import { checkRange, type RangeFlags } from "../shared/range.js";
import type { Context } from "../../context.js";
import { type Column, printList, type RecordField } from "../../io/render.js";
import type { Summary, SummaryBrand } from "../../spec/reports.js";
import { resolveBrandFilter } from "../campaigns/resolve.js";
import { checkSection, printTotals, rangeLine } from "./format.js";

/** The brands: the API's names in TSV and CSV, words in a table. */
const BRAND_COLUMNS: Column<SummaryBrand>[] = [
  { header: "brand.name", title: "Brand", value: (b) => b.brand.name, truncate: true },
  { header: "campaigns", value: (b) => b.campaigns },
  { header: "activeCampaigns", title: "Active", value: (b) => b.activeCampaigns, drop: 2 },
  { header: "linkViews", value: (b) => b.linkViews, drop: 1 },
  { header: "codesIssued", value: (b) => b.codesIssued },
  { header: "verifiedRedemptions", title: "Verified", value: (b) => b.verifiedRedemptions },
  { header: "redemptionRate", value: (b) => b.redemptionRate, kind: percent },
  {
    header: "estimatedCommission",
    title: "Est. commission",
    value: (b) => b.estimatedCommission,
    kind: dollars,
  },
];

const SECTIONS = ["totals", "brands"] as const;

function totalsFields(s: Summary): RecordField[] {
  const t = s.totals;
  return [
    ["range", rangeLine(s.range)],
    ["campaigns", t.campaigns],
    ["activeCampaigns", t.activeCampaigns],
    ["linkViews", t.linkViews],
    ["codesIssued", t.codesIssued],
    ["verifiedRedemptions", t.verifiedRedemptions],
    ["redemptionRate", t.redemptionRate, percent],
    ["estimatedCommission", t.estimatedCommission, dollars],
    ["estimatedSalesValue", t.estimatedSalesValue, dollars],
  ];
}

export interface ReportsSummaryOptions extends RangeFlags {
  brand?: string | undefined;
  /** --section: one part of the report on its own. */
  section?: string | undefined;
}

export async function reportsSummaryRun(o: ReportsSummaryOptions, ctx: Context): Promise<void> {
  const section = checkSection(ctx.io, o.section, SECTIONS);
  const range = checkRange(o);
  const api = await ctx.api();
  const brandId = (await resolveBrandFilter(api, o.brand))?.id;
  const s = await summaryReport(api, { ...range, brandId });
  if (section === "brands") {
    printList(ctx.io, s.brands, BRAND_COLUMNS, "No brands in this summary.");
    return;
  }
  if (section === "totals") {
    const { brands: _brands, ...totals } = s;
    printTotals(ctx.io, totals, totalsFields(s));
    return;
  }
  if (ctx.io.json) {
    ctx.io.outJson(s);
    return;
  }
  printTotals(ctx.io, s, totalsFields(s));
  ctx.io.out("\n");
  printList(ctx.io, s.brands, BRAND_COLUMNS, "No brands in this summary.");
}
