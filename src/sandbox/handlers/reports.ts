// Reports: GET /reports/summary, GET /campaigns/{id}/report, GET /reports/creator-counts
// (spec: Reports, Report field semantics 1-10, Date ranges, Limits).
//
// Every count is taken by its own date in the reporting time zone: views by view day, codes by issue
// day, redemptions by redeemedAt day. Staff test codes and test-code redemptions are left out;
// excluded redemptions are omitted. Commission is rate × unit price × counted redemptions per
// campaign (or per creator row), rounded once to four decimals half-to-even; brand figures and
// totals are exact sums of those campaign figures, so brand rows always sum to the totals.
import { LIMITS } from "../../spec/limits.js";
import { brandOf, campaignReference, campaignsOf, campaignView, findCampaign } from "../domain/campaigns.js";
import { addDays, dayBoundariesSec, dayIndex, daysOf, startOfDayMs } from "../../spec/days.js";
import { type ResolvedRange, rangeInput, resolveRange } from "../domain/dates.js";
import {
  type Dec,
  estimatedCommission,
  ratio,
  salesValue,
  sum,
  toJsonNumber,
  ZERO,
} from "../domain/money.js";
import { FLAG_EXCLUDED, FLAG_TEST, type Traffic } from "../domain/traffic.js";
import { notFound } from "../errors.js";
import { ok, type Handlers, type SandboxRequest } from "../http.js";
import { pageParams, paginate } from "../paging.js";
import { type OrgState, type CampaignRecord, trafficOf } from "../store.js";
import { linksOf } from "../domain/links.js";

interface Counts {
  linkViews: number;
  codesIssued: number;
  verifiedRedemptions: number;
}
const zero = (): Counts => ({ linkViews: 0, codesIssued: 0, verifiedRedemptions: 0 });

interface Aggregate {
  /** Per campaign index. */
  campaigns: Map<number, Counts>;
  /** Per campaign index × creator index (key ci * 2^25 + creator). */
  creators: Map<number, Counts>;
  /** Per day of the range (all selected campaigns together). */
  daily: Counts[];
}

const CREATOR_SPAN = 2 ** 25;
const linkKey = (ci: number, creator: number) => ci * CREATOR_SPAN + creator;

type Bump = (ci: number, creator: number, day: number, field: keyof Counts) => void;

/** Link views of the masked campaigns within the bounds, once per origin per link per reporting day. */
function countViews(t: Traffic, bounds: Float64Array, mask: Uint8Array, bump: Bump): void {
  const startS = bounds[0]!;
  const endS = bounds[bounds.length - 1]!;
  const seen = new Map<number, Set<number>>();
  const vc = t.viewCampaign.data;
  const vcr = t.viewCreator.data;
  const vo = t.viewOrigin.data;
  const va = t.viewAt.data;
  for (let i = 0; i < t.viewCount; i++) {
    const ci = vc[i]!;
    if (!mask[ci]) continue;
    const at = va[i]!;
    if (at < startS || at >= endS) continue;
    const day = dayIndex(bounds, at);
    const lk = linkKey(ci, vcr[i]!);
    let s = seen.get(lk);
    if (!s) {
      s = new Set();
      seen.set(lk, s);
    }
    const key = vo[i]! * 1024 + day;
    if (s.has(key)) continue;
    s.add(key);
    bump(ci, vcr[i]!, day, "linkViews");
  }
}

/**
 * Counts traffic of the selected campaign indexes within the range's days.
 * views: whether to count link views (once per origin per link per reporting day).
 */
function aggregate(
  t: Traffic,
  bounds: Float64Array,
  selected: Set<number>,
  opts: { views: boolean; creators: boolean; daily: boolean },
): Aggregate {
  const nDays = bounds.length - 1;
  const startS = bounds[0]!;
  const endS = bounds[nDays]!;
  const out: Aggregate = {
    campaigns: new Map(),
    creators: new Map(),
    daily: opts.daily ? Array.from({ length: nDays }, zero) : [],
  };
  const mask = new Uint8Array(t.campaigns.values.length);
  for (const ci of selected) {
    mask[ci] = 1;
    out.campaigns.set(ci, zero());
  }
  const bump: Bump = (ci, creator, day, field) => {
    out.campaigns.get(ci)![field]++;
    if (opts.creators && creator >= 0) {
      const k = linkKey(ci, creator);
      let c = out.creators.get(k);
      if (!c) {
        c = zero();
        out.creators.set(k, c);
      }
      c[field]++;
    }
    if (opts.daily && day >= 0) out.daily[day]![field]++;
  };

  if (opts.views) countViews(t, bounds, mask, bump);

  const cc = t.codeCampaign.data;
  const ccr = t.codeCreator.data;
  const cat = t.codeIssuedAt.data;
  for (let i = 0; i < t.codeCount; i++) {
    const ci = cc[i]!;
    if (!mask[ci]) continue;
    const creator = ccr[i]!;
    if (creator < 0) continue; // staff test code
    const at = cat[i]!;
    if (at < startS || at >= endS) continue;
    bump(ci, creator, opts.daily ? dayIndex(bounds, at) : -1, "codesIssued");
  }

  const rc = t.redCampaign.data;
  const rcr = t.redCreator.data;
  const rat = t.redRedeemedAt.data;
  const rf = t.redFlags.data;
  for (let i = 0; i < t.redemptionCount; i++) {
    const ci = rc[i]!;
    if (!mask[ci]) continue;
    if (rf[i]! & (FLAG_EXCLUDED | FLAG_TEST)) continue;
    const at = rat[i]!;
    if (at < startS || at >= endS) continue;
    bump(ci, rcr[i]!, opts.daily ? dayIndex(bounds, at) : -1, "verifiedRedemptions");
  }
  return out;
}

function rangeOf(req: SandboxRequest, maxDays: number | null): ResolvedRange {
  return resolveRange(rangeInput(req.query), req.sb.clock.nowMs(), req.state.org.reportingTimeZone, {
    maxDays,
  });
}

const overlaps = (rec: CampaignRecord, r: ResolvedRange) =>
  rec.dates.from <= r.through && rec.dates.through >= r.from;

function commissionOf(rec: CampaignRecord, count: number): Dec {
  return estimatedCommission(rec.commission.rate, rec.commission.estimatedUnitSalePrice, count);
}

function campaignIndexes(t: Traffic, recs: CampaignRecord[]): Set<number> {
  const s = new Set<number>();
  for (const rec of recs) {
    const ci = t.campaigns.find(rec.id);
    if (ci !== undefined) s.add(ci);
  }
  return s;
}

function countsOf(agg: Aggregate, t: Traffic, rec: CampaignRecord): Counts {
  const ci = t.campaigns.find(rec.id);
  return (ci === undefined ? undefined : agg.campaigns.get(ci)) ?? zero();
}

function creatorName(state: OrgState, externalId: string): string {
  return state.creators.get(externalId)?.name ?? externalId;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function summary(req: SandboxRequest) {
  const { state } = req;
  const r = rangeOf(req, LIMITS.rangeDaysMax);
  const brandId = req.query.get("brandId") || undefined;
  const t = trafficOf(state);
  const recs = [...campaignsOf(state).values()].filter((c) => !brandId || brandOf(state, c).id === brandId);
  const bounds = dayBoundariesSec(r.from, r.through, r.timeZone);
  const agg = aggregate(t, bounds, campaignIndexes(t, recs), { views: true, creators: false, daily: false });

  interface Row {
    brand: { id: string; name: string };
    campaigns: number;
    activeCampaigns: number;
    counts: Counts;
    commission: Dec;
    sales: Dec;
  }
  const brands = new Map<string, Row>();
  for (const rec of recs) {
    const brand = brandOf(state, rec);
    let row = brands.get(brand.id);
    if (!row) {
      row = { brand, campaigns: 0, activeCampaigns: 0, counts: zero(), commission: ZERO, sales: ZERO };
      brands.set(brand.id, row);
    }
    const c = countsOf(agg, t, rec);
    row.campaigns++;
    if (rec.status === "active" && overlaps(rec, r)) row.activeCampaigns++;
    row.counts.linkViews += c.linkViews;
    row.counts.codesIssued += c.codesIssued;
    row.counts.verifiedRedemptions += c.verifiedRedemptions;
    row.commission = row.commission.add(commissionOf(rec, c.verifiedRedemptions));
    row.sales = row.sales.add(salesValue(rec.commission.estimatedUnitSalePrice, c.verifiedRedemptions));
  }
  const rows = [...brands.values()].sort(
    (a, b) => byCodeUnits(a.brand.name, b.brand.name) || byCodeUnits(a.brand.id, b.brand.id),
  );
  const total = (f: (x: Row) => number) => rows.reduce((s, x) => s + f(x), 0);
  const codesIssued = total((x) => x.counts.codesIssued);
  const verified = total((x) => x.counts.verifiedRedemptions);
  return {
    range: r,
    totals: {
      activeCampaigns: total((x) => x.activeCampaigns),
      campaigns: total((x) => x.campaigns),
      linkViews: total((x) => x.counts.linkViews),
      codesIssued,
      verifiedRedemptions: verified,
      redemptionRate: ratio(verified, codesIssued),
      estimatedCommission: toJsonNumber(sum(rows.map((x) => x.commission))),
      estimatedSalesValue: toJsonNumber(sum(rows.map((x) => x.sales))),
    },
    brands: rows.map((x) => ({
      brand: x.brand,
      campaigns: x.campaigns,
      activeCampaigns: x.activeCampaigns,
      linkViews: x.counts.linkViews,
      codesIssued: x.counts.codesIssued,
      verifiedRedemptions: x.counts.verifiedRedemptions,
      redemptionRate: ratio(x.counts.verifiedRedemptions, x.counts.codesIssued),
      estimatedCommission: toJsonNumber(x.commission),
    })),
  };
}

export function campaignReport(req: SandboxRequest) {
  const { state } = req;
  const rec = findCampaign(state, req.params.id!);
  if (!rec) throw notFound("Campaign");
  const r = rangeOf(req, LIMITS.rangeDaysMax);
  const paging = pageParams(req.query);
  const t = trafficOf(state);
  const bounds = dayBoundariesSec(r.from, r.through, r.timeZone);
  const ci = t.campaigns.find(rec.id);
  const agg = aggregate(t, bounds, new Set(ci === undefined ? [] : [ci]), {
    views: true,
    creators: true,
    daily: true,
  });
  const c = countsOf(agg, t, rec);
  const links = linksOf(state, rec.id);
  const rows = [...links.values()].map((link) => {
    const cr = t.creators.find(link.externalId);
    const counts =
      (ci === undefined || cr === undefined ? undefined : agg.creators.get(linkKey(ci, cr))) ?? zero();
    return { link, counts };
  });
  rows.sort(
    (a, b) =>
      b.counts.verifiedRedemptions - a.counts.verifiedRedemptions ||
      byCodeUnits(a.link.externalId, b.link.externalId),
  );
  const ranked = rows.map(({ link, counts }, i) => ({
    rank: i + 1,
    creator: { externalId: link.externalId, name: creatorName(state, link.externalId) },
    active: link.active,
    linkViews: counts.linkViews,
    codesIssued: counts.codesIssued,
    verifiedRedemptions: counts.verifiedRedemptions,
    conversionRate: ratio(counts.verifiedRedemptions, counts.linkViews),
    estimatedCommission: toJsonNumber(commissionOf(rec, counts.verifiedRedemptions)),
  }));
  const days = daysOf(r.from, r.through);
  return {
    range: r,
    campaign: campaignReference(rec),
    brand: brandOf(state, rec),
    commission: campaignView(state, rec).commission,
    totals: {
      linkViews: c.linkViews,
      codesIssued: c.codesIssued,
      verifiedRedemptions: c.verifiedRedemptions,
      redemptionRate: ratio(c.verifiedRedemptions, c.codesIssued),
      estimatedCommission: toJsonNumber(commissionOf(rec, c.verifiedRedemptions)),
    },
    daily: days.map((date, i) => ({ date, ...agg.daily[i]! })),
    creators: paginate(ranked, paging),
  };
}

export function creatorCounts(req: SandboxRequest) {
  const { state } = req;
  const r = rangeOf(req, null);
  const brandId = req.query.get("brandId") || undefined;
  const campaignId = req.query.get("campaignId") || undefined;
  const paging = pageParams(req.query);
  const t = trafficOf(state);
  const recs = [...campaignsOf(state).values()]
    .filter((c) => !campaignId || c.id === campaignId)
    .filter((c) => !brandId || brandOf(state, c).id === brandId)
    .sort((a, b) => a.seq - b.seq);
  // No per-day split needed: one span from the first day's start to the end of the last day.
  const bounds = Float64Array.of(
    Math.floor(startOfDayMs(r.from, r.timeZone) / 1000),
    Math.floor(startOfDayMs(addDays(r.through, 1), r.timeZone) / 1000),
  );
  const agg = aggregate(t, bounds, campaignIndexes(t, recs), { views: false, creators: true, daily: false });
  const items = recs.flatMap((rec) => {
    const ci = t.campaigns.find(rec.id);
    const ref = campaignReference(rec);
    const brand = brandOf(state, rec);
    return [...linksOf(state, rec.id).values()]
      .sort((a, b) => byCodeUnits(a.externalId, b.externalId))
      .map((link) => {
        const cr = t.creators.find(link.externalId);
        const n =
          (ci === undefined || cr === undefined ? undefined : agg.creators.get(linkKey(ci, cr)))
            ?.verifiedRedemptions ?? 0;
        return {
          creator: { externalId: link.externalId, name: creatorName(state, link.externalId) },
          campaign: ref,
          brand,
          verifiedRedemptions: n,
          estimatedCommission: toJsonNumber(commissionOf(rec, n)),
          commissionRate: Number(rec.commission.rate),
          estimatedUnitSalePrice: Number(rec.commission.estimatedUnitSalePrice),
        };
      });
  });
  return { range: r, ...paginate(items, paging) };
}

export const reportHandlers = {
  summary: (req) => ok(summary(req)),
  creatorCounts: (req) => ok(creatorCounts(req)),
  campaignReport: (req) => ok(campaignReport(req)),
} satisfies Handlers;
