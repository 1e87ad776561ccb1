// Reports (spec: Reports endpoints, Report field semantics 1-10, Date ranges, Limits) and the date
// range parameters shared with range-mode redemptions. Shared by the CLI (flag pre-checks, lenient
// response parsing) and the sandbox (strict response checks in tests).
//
// Decimals (rates, estimatedCommission, estimatedSalesValue, commission inputs) are JSON numbers in
// responses; the loose client schemas also accept decimal strings.
import { z } from "zod";
import { CalendarDay, type Kit, kit, pageOf } from "./kit.js";
import { RANGE_PRESETS } from "./ranges.js";

export {
  DEFAULT_PRESET,
  inclusiveDays,
  isCalendarDay,
  RANGE_PRESETS,
  type RangeInput,
  type RangePreset,
  type RangePresetEcho,
  rangeProblems,
} from "./ranges.js";

/** The pieces every report shares: decimals and integers of the mode, the range, the references. */
function baseSchemas(k: Kit, mode: "strict" | "loose") {
  const Dec = mode === "strict" ? z.number() : z.union([z.number(), z.string()]);
  const Int = z.number().int();
  const Range = k.obj({
    from: CalendarDay,
    through: CalendarDay,
    timeZone: z.string(),
    preset: k.en([...RANGE_PRESETS, "custom"] as const),
  });
  const BrandReference = k.obj({ id: z.string(), name: z.string() });
  const CampaignReference = k.obj({
    id: z.string(),
    externalReference: z.string().nullable(),
    name: z.string(),
  });
  const CreatorReference = k.obj({ externalId: z.string(), name: z.string() });
  return { Dec, Int, Range, BrandReference, CampaignReference, CreatorReference };
}

type Base = ReturnType<typeof baseSchemas>;

function summarySchemas(k: Kit, { Dec, Int, Range, BrandReference }: Base) {
  const SummaryTotals = k.obj({
    activeCampaigns: Int,
    campaigns: Int,
    linkViews: Int,
    codesIssued: Int,
    verifiedRedemptions: Int,
    redemptionRate: Dec.nullable(),
    estimatedCommission: Dec,
    estimatedSalesValue: Dec,
  });
  const SummaryBrand = k.obj({
    brand: BrandReference,
    campaigns: Int,
    activeCampaigns: Int,
    linkViews: Int,
    codesIssued: Int,
    verifiedRedemptions: Int,
    redemptionRate: Dec.nullable(),
    estimatedCommission: Dec,
  });
  const Summary = k.obj({ range: Range, totals: SummaryTotals, brands: z.array(SummaryBrand) });
  return { SummaryTotals, SummaryBrand, Summary };
}

function campaignReportSchemas(k: Kit, b: Base) {
  const { Dec, Int } = b;
  const CampaignTotals = k.obj({
    linkViews: Int,
    codesIssued: Int,
    verifiedRedemptions: Int,
    redemptionRate: Dec.nullable(),
    estimatedCommission: Dec,
  });
  const Daily = k.obj({ date: CalendarDay, linkViews: Int, codesIssued: Int, verifiedRedemptions: Int });
  const CreatorRow = k.obj({
    rank: Int,
    creator: b.CreatorReference,
    active: z.boolean(),
    linkViews: Int,
    codesIssued: Int,
    verifiedRedemptions: Int,
    conversionRate: Dec.nullable(),
    estimatedCommission: Dec,
  });
  const CampaignReport = k.obj({
    range: b.Range,
    campaign: b.CampaignReference,
    brand: b.BrandReference,
    commission: k.obj({ rate: Dec, estimatedUnitSalePrice: Dec, estimatedPerRedemption: Dec }),
    totals: CampaignTotals,
    daily: z.array(Daily),
    creators: pageOf(k, CreatorRow),
  });
  return { CampaignTotals, Daily, CreatorRow, CampaignReport };
}

function creatorCountSchemas(k: Kit, b: Base) {
  const CreatorCount = k.obj({
    creator: b.CreatorReference,
    campaign: b.CampaignReference,
    brand: b.BrandReference,
    verifiedRedemptions: b.Int,
    estimatedCommission: b.Dec,
    commissionRate: b.Dec,
    estimatedUnitSalePrice: b.Dec,
  });
  const CreatorCounts = k.obj({
    range: b.Range,
    items: z.array(CreatorCount),
    page: b.Int,
    pageSize: b.Int,
    totalCount: b.Int,
  });
  return { CreatorCount, CreatorCounts };
}

function reportSchemas(k: Kit, mode: "strict" | "loose") {
  const base = baseSchemas(k, mode);
  return {
    Range: base.Range,
    ...summarySchemas(k, base),
    ...campaignReportSchemas(k, base),
    ...creatorCountSchemas(k, base),
  };
}
export const strictReports = reportSchemas(kit("strict"), "strict");
export const looseReports = reportSchemas(kit("loose"), "loose");
export type ReportRange = z.infer<typeof strictReports.Range>;
export type Summary = z.infer<typeof strictReports.Summary>;
export type SummaryBrand = z.infer<typeof strictReports.SummaryBrand>;
export type CampaignReport = z.infer<typeof strictReports.CampaignReport>;
export type CampaignReportCreator = z.infer<typeof strictReports.CreatorRow>;
export type CreatorCount = z.infer<typeof strictReports.CreatorCount>;
export type CreatorCounts = z.infer<typeof strictReports.CreatorCounts>;
