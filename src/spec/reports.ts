// Reports (spec: Reports endpoints, Report field semantics 1-10, Date ranges, Limits) and the date
// range parameters shared with range-mode redemptions. Shared by the CLI (flag pre-checks, lenient
// response parsing) and the sandbox (strict response checks in tests).
//
// Decimals (rates, estimatedCommission, estimatedSalesValue, commission inputs) are JSON numbers in
// responses; the loose client schemas also accept decimal strings.
import { z } from "zod";
import { CalendarDay, type Kit, kit, pageOf } from "./kit.js";
import { LIMITS } from "./limits.js";

/** Date-range presets (spec: Date ranges). The default is `30d`. */
export const RANGE_PRESETS = ["today", "7d", "30d", "90d", "this-month", "last-month"] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
export const DEFAULT_PRESET: RangePreset = "30d";
/** What `range.preset` says: a preset, or `custom` for explicit dates. */
export type RangePresetEcho = RangePreset | "custom";

/** True for a real calendar day `YYYY-MM-DD` (2025-02-30 is refused). */
export function isCalendarDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

/** Days from `from` through `through`, both included (calendar arithmetic, no time zone involved). */
export function inclusiveDays(from: string, through: string): number {
  return Math.round((Date.parse(`${through}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

export interface RangeInput {
  preset?: string | undefined;
  from?: string | undefined;
  through?: string | undefined;
}

/**
 * The request-side rules of a date range, as field → messages (empty when valid):
 * a known preset; real calendar days; `from` and `through` together; `through` not before `from`;
 * no preset together with dates; at most `maxDays` days (366 for capped endpoints, none otherwise).
 */
export function rangeProblems(
  r: RangeInput,
  opts: { maxDays?: number | null } = {},
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const add = (f: string, m: string) => {
    const list = out[f] ?? [];
    list.push(m);
    out[f] = list;
  };
  if (r.preset !== undefined && !(RANGE_PRESETS as readonly string[]).includes(r.preset))
    add("preset", `must be one of ${RANGE_PRESETS.join(", ")}`);
  if (r.preset !== undefined && (r.from !== undefined || r.through !== undefined))
    add("preset", "must not be combined with from or through");
  for (const f of ["from", "through"] as const) {
    const v = r[f];
    if (v !== undefined && !isCalendarDay(v)) add(f, "must be a calendar day YYYY-MM-DD");
  }
  if (r.from !== undefined && r.through === undefined) add("through", "is required with from");
  if (r.through !== undefined && r.from === undefined) add("from", "is required with through");
  if (
    r.from !== undefined &&
    r.through !== undefined &&
    isCalendarDay(r.from) &&
    isCalendarDay(r.through) &&
    !out.from &&
    !out.through
  ) {
    if (r.through < r.from) add("through", "must be on or after from");
    else {
      const max = opts.maxDays === undefined ? LIMITS.rangeDaysMax : opts.maxDays;
      if (max !== null && inclusiveDays(r.from, r.through) > max)
        add("through", `the range must be at most ${max} days including both ends`);
    }
  }
  return out;
}

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
