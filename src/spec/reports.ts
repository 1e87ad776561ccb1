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

export function reportSchemas(k: Kit, mode: "strict" | "loose") {
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
    creator: CreatorReference,
    active: z.boolean(),
    linkViews: Int,
    codesIssued: Int,
    verifiedRedemptions: Int,
    conversionRate: Dec.nullable(),
    estimatedCommission: Dec,
  });
  const CampaignReport = k.obj({
    range: Range,
    campaign: CampaignReference,
    brand: BrandReference,
    commission: k.obj({ rate: Dec, estimatedUnitSalePrice: Dec, estimatedPerRedemption: Dec }),
    totals: CampaignTotals,
    daily: z.array(Daily),
    creators: pageOf(k, CreatorRow),
  });

  const CreatorCount = k.obj({
    creator: CreatorReference,
    campaign: CampaignReference,
    brand: BrandReference,
    verifiedRedemptions: Int,
    estimatedCommission: Dec,
    commissionRate: Dec,
    estimatedUnitSalePrice: Dec,
  });
  const CreatorCounts = k.obj({
    range: Range,
    items: z.array(CreatorCount),
    page: Int,
    pageSize: Int,
    totalCount: Int,
  });
  return {
    Range,
    SummaryTotals,
    SummaryBrand,
    Summary,
    CampaignTotals,
    Daily,
    CreatorRow,
    CampaignReport,
    CreatorCount,
    CreatorCounts,
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
