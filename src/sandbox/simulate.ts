// Shopper traffic for the sandbox (POST /_sandbox/simulate; `partner-cli sandbox simulate`): link
// views, code claims through creators' links, staff test codes, redemptions, exclusions and
// restorations, with the events the spec names and the supply alerts. docs/sandbox/traffic.md
// describes every choice made here.
//
// Bulk path: rows go straight into the typed-array columns of the traffic store (domain/traffic.ts).
// Events are emitted per item only up to EVENTS_AUTO_MAX items per call unless `events: true` is sent,
// so a million redemptions cost seconds, not a million event envelopes.
import { randomInt } from "node:crypto";
import { z } from "zod";
import { Timestamp } from "../spec/kit.js";
import {
  campaignReference,
  campaignsOf,
  codesRemaining,
  findCampaign,
  findCampaignByIdOrReference,
  isViewOnly,
  recordCodesIssued,
  recordRedeemed,
  recordTestCodes,
} from "./domain/campaigns.js";
import { addDays, dayOfMs, startOfDayMs } from "./domain/dates.js";
import { FLAG_EXCLUDED, FLAG_TEST, NO_CREATOR, type Traffic } from "./domain/traffic.js";
import { invalid, notFound } from "./errors.js";
import type { Sandbox } from "./sandbox.js";
import { type OrgState, type CampaignRecord, trafficOf } from "./store.js";
import { linksOf } from "./domain/links.js";
import { isoOfSec, RedemptionRenderer } from "./domain/redemption-render.js";

/** Up to this many generated items (claims, redemptions, corrections) a call emits events by default. */
export const EVENTS_AUTO_MAX = 10_000;
/** At most this many items per call with `events: true`. */
export const EVENTS_MAX = 200_000;
const MAX_ITEMS = 10_000_000;

const Count = z.number().int().min(0).max(MAX_ITEMS);
export const SimulateBody = z.strictObject({
  /** Campaign id or externalReference; default: every active campaign. */
  campaign: z.string().min(1).optional(),
  views: Count.optional(),
  claims: Count.optional(),
  testCodes: Count.optional(),
  redemptions: Count.optional(),
  testRedemptions: Count.optional(),
  exclusions: Count.optional(),
  restorations: Count.optional(),
  /** Redemption ids to exclude / restore. */
  exclude: z.array(z.string()).max(10_000).optional(),
  restore: z.array(z.string()).max(10_000).optional(),
  /** Reason of the exclusions or restorations of this call (null: an exclusion without a reason). */
  reason: z.string().max(500).nullable().optional(),
  seed: z.union([z.number().int(), z.string()]).optional(),
  /** Spread over today and the days before (reporting time zone), up to now. Default 1 = today. */
  days: z.number().int().min(1).max(1000).optional(),
  /** Everything at this instant instead (must be in the past of the sandbox clock). */
  at: Timestamp.optional(),
  /** Views come from this many distinct network origins (default 50), or all from `origin`. */
  origins: z.number().int().min(1).max(1_000_000).optional(),
  origin: z.string().min(1).max(100).optional(),
  /** Emit per-item events; default: only when the call generates at most 10,000 items. */
  events: z.boolean().optional(),
});
export type SimulateBody = z.infer<typeof SimulateBody>;

export interface SimulateResult {
  campaigns: { id: string; externalReference: string | null; name: string }[];
  views: number;
  claims: number;
  testCodes: number;
  redemptions: number;
  testRedemptions: number;
  exclusions: number;
  restorations: number;
  /** Events appended to the log by this call (supply alerts included). */
  events: number;
  /** Whether per-item events were emitted (false on the bulk path). */
  itemEvents: boolean;
  /** Why less than asked was generated. */
  notes: string[];
}

/** mulberry32: small, fast, reproducible. */
export function prng(seed: number | string | undefined): () => number {
  let a: number;
  if (seed === undefined) a = randomInt(2 ** 31);
  else if (typeof seed === "number") a = seed | 0;
  else {
    a = 2166136261;
    for (let i = 0; i < seed.length; i++) a = Math.imul(a ^ seed.charCodeAt(i), 16777619);
  }
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EXCLUSION_REASONS = ["Duplicate redemption", "Retailer reversal", "Suspected misuse of the code"];
const RESTORATION_REASON = "Reviewed and confirmed";

function share(n: number, k: number, parts: number): number {
  return Math.floor(n / parts) + (k < n % parts ? 1 : 0);
}

/** The documentation network 203.0.113.0/24 and friends, then 10.x for larger pools. */
function originName(k: number): string {
  if (k < 254) return `203.0.113.${k + 1}`;
  if (k < 508) return `198.51.100.${k - 253}`;
  const j = k - 508;
  return `10.${(j >> 16) & 255}.${(j >> 8) & 255}.${j & 255}`;
}

/** The supply codes of a campaign (issued includes staff test codes). */
export function supplyCodes(rec: CampaignRecord) {
  return {
    limit: rec.codes.limit,
    issued: rec.codes.issued + rec.codes.testCodes,
    remaining: codesRemaining(rec),
  };
}

/**
 * Supply alerts (spec: Supply rules): with alert recipients configured, an active campaign whose
 * remaining drops to a positive value at or below ceil(10% of the limit) gets one
 * campaign.supply_low per incident; none left gets one campaign.supply_exhausted. The incident ends
 * when remaining rises above the threshold again (a raised limit). Returns the events emitted.
 * The sandbox checks right after codes are handed out instead of every five minutes.
 */
export function checkSupply(sb: Sandbox, state: OrgState, rec: CampaignRecord): number {
  const t = trafficOf(state);
  const remaining = codesRemaining(rec);
  const threshold = Math.ceil(rec.codes.limit * 0.1);
  let alerts = t.supplyAlerts.get(rec.id);
  if (remaining > threshold) {
    if (alerts) t.supplyAlerts.delete(rec.id);
    return 0;
  }
  if (!alerts) {
    alerts = { low: false, exhausted: false };
    t.supplyAlerts.set(rec.id, alerts);
  }
  if (remaining > 0) alerts.exhausted = false;
  if (rec.status !== "active" || state.org.alertRecipients.length === 0) return 0;
  const data = () => ({ campaign: campaignReference(rec), codes: supplyCodes(rec) });
  if (remaining <= 0 && !alerts.exhausted) {
    alerts.exhausted = true;
    alerts.low = true;
    sb.emit(state, "campaign.supply_exhausted", data());
    return 1;
  }
  if (remaining > 0 && !alerts.low) {
    alerts.low = true;
    sb.emit(state, "campaign.supply_low", data());
    return 1;
  }
  return 0;
}

/** Records one link open (a view) from a network origin at an instant (default now). */
export function recordView(
  sb: Sandbox,
  state: OrgState,
  campaignId: string,
  externalId: string,
  origin: string,
  atMs = sb.clock.nowMs(),
): void {
  const t = trafficOf(state);
  t.addView(
    t.campaigns.intern(campaignId),
    t.creators.intern(externalId),
    t.origins.intern(origin),
    Math.floor(atMs / 1000),
  );
  t.touch();
  sb.markDirty();
}

interface Pending {
  code: Uint32Array;
  redeemedAt: Uint32Array;
  recordedAt: Uint32Array;
  n: number;
}

function pendingOf(cap: number): Pending {
  return {
    code: new Uint32Array(cap),
    redeemedAt: new Uint32Array(cap),
    recordedAt: new Uint32Array(cap),
    n: 0,
  };
}

/** Runs one simulate call. Validation errors are thrown before anything changes. */
export function simulate(sb: Sandbox, state: OrgState, body: SimulateBody): SimulateResult {
  const t = trafficOf(state);
  const tz = state.org.reportingTimeZone;
  const nowMs = sb.clock.nowMs();
  const nowS = Math.floor(nowMs / 1000);
  const rand = prng(body.seed);
  const notes: string[] = [];

  // --- validation -------------------------------------------------------------------------------
  let atS: number | undefined;
  if (body.at !== undefined) {
    atS = Math.floor(Date.parse(body.at) / 1000);
    if (!(atS < nowS))
      throw invalid("at must be before the sandbox clock's now.", { at: ["must be in the past"] });
  }
  if (body.at !== undefined && body.days !== undefined)
    throw invalid("Send days or at, not both.", { at: ["must not be combined with days"] });
  const parseIds = (field: "exclude" | "restore") => {
    const ids = body[field] ?? [];
    const bad: string[] = [];
    const out: number[] = [];
    for (const id of ids) {
      const i = t.redemptionIds.indexOf(id);
      if (i === undefined || i >= t.redemptionCount) bad.push(id);
      else out.push(i);
    }
    if (bad.length > 0) throw notFound(`Redemption ${bad[0]}`);
    return out;
  };
  const excludeIdx = parseIds("exclude");
  const restoreIdx = parseIds("restore");

  let targets: CampaignRecord[];
  if (body.campaign !== undefined) {
    const rec = findCampaignByIdOrReference(state, body.campaign);
    if (!rec) throw notFound(`Campaign ${body.campaign}`);
    targets = [rec];
  } else {
    targets = [...campaignsOf(state).values()].filter((c) => c.status === "active");
  }

  const nothingAsked =
    body.views === undefined &&
    body.claims === undefined &&
    body.testCodes === undefined &&
    body.redemptions === undefined &&
    body.testRedemptions === undefined &&
    body.exclusions === undefined &&
    body.restorations === undefined &&
    body.exclude === undefined &&
    body.restore === undefined;
  const want = {
    views: body.views ?? (nothingAsked ? 50 : 0),
    claims: body.claims,
    testCodes: body.testCodes ?? 0,
    redemptions: body.redemptions ?? (nothingAsked ? 10 : 0),
    testRedemptions: body.testRedemptions ?? 0,
    exclusions: body.exclusions ?? 0,
    restorations: body.restorations ?? 0,
  };
  const claimsAsked = want.claims ?? (nothingAsked ? 20 : 0);
  const itemCount =
    Math.max(claimsAsked, want.redemptions) +
    want.redemptions +
    want.exclusions +
    want.restorations +
    excludeIdx.length +
    restoreIdx.length;
  if (body.events === true && itemCount > EVENTS_MAX)
    throw invalid(
      `events: true is limited to ${EVENTS_MAX.toLocaleString("en-US")} items per call (the event log and its snapshot would grow too large); split the call or leave events out.`,
      { events: [`must not be true for more than ${EVENTS_MAX} items`] },
    );
  const itemEvents = body.events ?? itemCount <= EVENTS_AUTO_MAX;
  const result: SimulateResult = {
    campaigns: targets.map(campaignReference),
    views: 0,
    claims: 0,
    testCodes: 0,
    redemptions: 0,
    testRedemptions: 0,
    exclusions: 0,
    restorations: 0,
    events: 0,
    itemEvents,
    notes,
  };
  if (targets.length === 0 && !excludeIdx.length && !restoreIdx.length) {
    notes.push("No active campaign: nothing to simulate (activate a campaign or name one with campaign).");
    return result;
  }
  const emit = (type: string, data: Record<string, unknown>) => {
    sb.emit(state, type, data);
    result.events++;
  };
  const renderer = new RedemptionRenderer(state, t);

  // --- time window ------------------------------------------------------------------------------
  const days = body.days ?? 1;
  const today = dayOfMs(nowMs, tz);
  const dayStartS = (day: string) => Math.floor(startOfDayMs(day, tz) / 1000);
  const windowStart = dayStartS(addDays(today, -(days - 1)));
  const windowEnd = nowS - 1;
  const randIn = (lo: number, hi: number) => (hi <= lo ? lo : lo + Math.floor(rand() * (hi - lo + 1)));
  const originPool = body.origins ?? 50;
  const pickOrigin = () =>
    body.origin !== undefined
      ? t.origins.intern(body.origin)
      : t.origins.intern(originName(Math.floor(rand() * originPool)));

  const pending = pendingOf(Math.min(MAX_ITEMS, want.redemptions + want.testRedemptions));
  const T = targets.length;

  targets.forEach((rec, k) => {
    const ci = t.campaigns.intern(rec.id);
    const links = [...linksOf(state, rec.id).values()].filter((l) => l.active);
    const linkCreators = links.map((l) => t.creators.intern(l.externalId));
    const label = rec.externalReference ?? rec.id;
    // The campaign's own window: its dates (in the reporting time zone) within the asked window.
    const campStart = dayStartS(rec.dates.from);
    const campEnd = dayStartS(addDays(rec.dates.through, 1)) - 1;
    const lo = atS ?? Math.max(windowStart, campStart);
    // Claims end a second before the window does, so each can still be redeemed within the window.
    const hi = atS ?? Math.min(windowEnd - 1, campEnd);
    const inDates = lo <= hi && (atS === undefined || (atS >= campStart && atS <= campEnd));

    // Views.
    const nViews = share(want.views, k, T);
    if (nViews > 0) {
      if (links.length === 0) notes.push(`${label}: no active links, so no views.`);
      else {
        const vlo = atS ?? windowStart;
        const vhi = atS ?? windowEnd;
        for (let v = 0; v < nViews; v++) {
          t.addView(ci, linkCreators[Math.floor(rand() * links.length)]!, pickOrigin(), randIn(vlo, vhi));
        }
        result.views += nViews;
      }
    }

    // Codes: shopper claims, then staff test codes. A limit raised since the last check may have
    // ended a supply incident: look first (no alert can be due before codes are handed out).
    checkSupply(sb, state, rec);
    const offer = state.offers.get(rec.offer.baseGs1);
    const supply = () =>
      offer?.codesAvailable === null || !offer ? Number.POSITIVE_INFINITY : offer.codesAvailable;
    let nClaims =
      want.claims !== undefined || nothingAsked
        ? share(claimsAsked, k, T)
        : Math.max(0, share(want.redemptions, k, T) - t.unredeemed(ci).shopper.length);
    if (nClaims > 0) {
      const why =
        rec.status !== "active"
          ? `the campaign is ${rec.status}`
          : isViewOnly(state, rec)
            ? "the organization lost access to its brand"
            : offer?.state !== "available"
              ? "its offer is not available"
              : !inDates
                ? "the time is outside the campaign dates"
                : links.length === 0
                  ? "it has no active links"
                  : codesRemaining(rec) <= 0
                    ? "no codes remain under its limit"
                    : supply() <= 0
                      ? "its offer has no codes left"
                      : undefined;
      const possible = why ? 0 : Math.min(nClaims, codesRemaining(rec), supply());
      if (possible < nClaims)
        notes.push(`${label}: ${possible} of ${nClaims} claims (${why ?? "codes ran out"}).`);
      nClaims = possible;
      if (nClaims > 0) {
        const times = new Uint32Array(nClaims);
        for (let c = 0; c < nClaims; c++) times[c] = randIn(lo, hi);
        times.sort();
        t.reserveCodes(nClaims);
        for (let c = 0; c < nClaims; c++) {
          const creator = linkCreators[Math.floor(rand() * links.length)]!;
          const code = t.addCode(ci, creator, times[c]!);
          if (itemEvents)
            emit("code.issued", {
              claimId: t.claimIds.idOf(code),
              campaign: campaignReference(rec),
              creator: { ...renderer.creator(creator).obj! },
              issuedAt: isoOfSec(times[c]!),
            });
        }
        recordCodesIssued(state, rec.id, nClaims);
        if (offer && offer.codesAvailable !== null) offer.codesAvailable -= nClaims;
        result.claims += nClaims;
      }
    }
    let nTest = share(want.testCodes, k, T);
    if (nTest > 0) {
      const blocked =
        rec.status === "ended"
          ? "the campaign has ended"
          : isViewOnly(state, rec)
            ? "the organization lost access to its brand"
            : undefined;
      const possible = blocked ? 0 : Math.min(nTest, codesRemaining(rec), supply());
      if (possible < nTest)
        notes.push(`${label}: ${possible} of ${nTest} test codes (${blocked ?? "codes ran out"}).`);
      nTest = possible;
      if (nTest > 0) {
        t.reserveCodes(nTest);
        const tlo = atS ?? windowStart;
        for (let c = 0; c < nTest; c++) t.addCode(ci, NO_CREATOR, randIn(tlo, atS ?? windowEnd));
        recordTestCodes(state, rec.id, nTest);
        if (offer && offer.codesAvailable !== null) offer.codesAvailable -= nTest;
        result.testCodes += nTest;
      }
    }
    if (nClaims > 0 || nTest > 0) result.events += checkSupply(sb, state, rec);

    // Redemptions of handed-out codes (and of test codes): picked at random among unredeemed ones.
    const redeem = (pool: number[], n: number, kind: string) => {
      const end = atS ?? windowEnd;
      let done = 0;
      const skipped: number[] = [];
      while (done < n && pool.length > 0) {
        const j = Math.floor(rand() * pool.length);
        const code = pool[j]!;
        pool[j] = pool[pool.length - 1]!;
        pool.pop();
        if (t.codeRedemption.data[code] !== -1) continue;
        const issuedAt = t.codeIssuedAt.data[code]!;
        if (issuedAt >= end) {
          skipped.push(code);
          continue;
        }
        const redeemedAt = atS ?? randIn(issuedAt + 1, end);
        const p = pending.n++;
        pending.code[p] = code;
        pending.redeemedAt[p] = redeemedAt;
        pending.recordedAt[p] = Math.min(nowS, redeemedAt + 1 + Math.floor(rand() * 900));
        t.codeRedemption.data[code] = -2; // taken by this call
        done++;
      }
      pool.push(...skipped);
      if (done < n)
        notes.push(`${label}: ${done} of ${n} ${kind} (not enough unredeemed codes issued before).`);
      return done;
    };
    const u = t.unredeemed(ci);
    const nRed = share(want.redemptions, k, T);
    if (nRed > 0) result.redemptions += redeem(u.shopper, nRed, "redemptions");
    const nTestRed = share(want.testRedemptions, k, T);
    if (nTestRed > 0) result.testRedemptions += redeem(u.test, nTestRed, "test redemptions");
  });

  // Append the new redemptions in recordedAt order (recordedAt never goes below the last one).
  if (pending.n > 0) {
    const n = pending.n;
    const order = sortByRecordedAt(pending);
    t.reserveRedemptions(n);
    // Never before the last recorded one (feed order), nor at or before an asOf already handed out.
    let last = Math.max(t.lastRecordedAt, t.asOfFloor + 1);
    const first = t.redemptionCount;
    const counted = new Map<string, number>();
    for (let k = 0; k < n; k++) {
      const p = order[k]!;
      const rec = Math.max(last, pending.recordedAt[p]!);
      last = rec;
      const code = pending.code[p]!;
      t.codeRedemption.data[code] = -1;
      t.addRedemption(code, pending.redeemedAt[p]!, rec);
    }
    for (let i = first; i < first + n; i++) {
      if (t.redFlags.data[i]! & FLAG_TEST) continue;
      const campaignId = t.campaigns.get(t.redCampaign.data[i]!);
      counted.set(campaignId, (counted.get(campaignId) ?? 0) + 1);
      if (itemEvents) emit("redemption.recorded", renderer.object(i) as unknown as Record<string, unknown>);
    }
    for (const [campaignId, c] of counted) recordRedeemed(state, campaignId, c);
  }

  // Corrections: explicit ids first, then random picks within the targets.
  const nowIso = isoOfSec(nowS);
  const exclude = (i: number, reason: string | null) => {
    const f = t.redFlags.data[i]!;
    if (f & FLAG_EXCLUDED) return false;
    t.redFlags.data[i] = f | FLAG_EXCLUDED;
    t.redExcludedAt.data[i] = nowS;
    t.redReason.data[i] = reason === null ? 0 : t.reasons.intern(reason);
    const campaignId = t.campaigns.get(t.redCampaign.data[i]!);
    const rec = findCampaign(state, campaignId);
    if (!(f & FLAG_TEST)) {
      if (rec) recordRedeemed(state, campaignId, -1);
      if (itemEvents && rec)
        emit("redemption.excluded", {
          redemptionId: t.redemptionIds.idOf(i),
          campaign: campaignReference(rec),
          creator: renderer.object(i).creator,
          excludedAt: nowIso,
          reason: reason ?? "",
        });
    }
    result.exclusions++;
    return true;
  };
  const restore = (i: number, reason: string) => {
    const f = t.redFlags.data[i]!;
    if (!(f & FLAG_EXCLUDED)) return false;
    t.redFlags.data[i] = f & ~FLAG_EXCLUDED;
    t.redExcludedAt.data[i] = 0;
    t.redReason.data[i] = 0;
    const campaignId = t.campaigns.get(t.redCampaign.data[i]!);
    const rec = findCampaign(state, campaignId);
    if (!(f & FLAG_TEST)) {
      if (rec) recordRedeemed(state, campaignId, 1);
      if (itemEvents && rec)
        emit("redemption.restored", {
          redemptionId: t.redemptionIds.idOf(i),
          campaign: campaignReference(rec),
          creator: renderer.object(i).creator,
          restoredAt: nowIso,
          reason,
        });
    }
    result.restorations++;
    return true;
  };
  const exclusionReason = () =>
    body.reason !== undefined
      ? body.reason
      : EXCLUSION_REASONS[Math.floor(rand() * EXCLUSION_REASONS.length)]!;
  const restorationReason = () => body.reason ?? RESTORATION_REASON;
  for (const i of excludeIdx) exclude(i, exclusionReason());
  for (const i of restoreIdx) restore(i, restorationReason());
  if (want.exclusions > 0 || want.restorations > 0) {
    const byCampaign = candidatesByCampaign(t, new Set(targets.map((c) => t.campaigns.intern(c.id))));
    targets.forEach((rec, k) => {
      const ci = t.campaigns.intern(rec.id);
      const label = rec.externalReference ?? rec.id;
      const cand = byCampaign.get(ci) ?? { counted: [], excluded: [] };
      const nEx = share(want.exclusions, k, T);
      const exPicked = pickRandom(cand.counted, nEx, rand);
      for (const i of exPicked) exclude(i, exclusionReason());
      // Exclusions made by this call may be restored by it too (the candidates were read before).
      cand.excluded.push(...exPicked);
      if (exPicked.length < nEx)
        notes.push(`${label}: ${exPicked.length} of ${nEx} exclusions (not enough counted redemptions).`);
      const nRe = share(want.restorations, k, T);
      const rePicked = pickRandom(cand.excluded, nRe, rand);
      for (const i of rePicked) restore(i, restorationReason());
      if (rePicked.length < nRe)
        notes.push(`${label}: ${rePicked.length} of ${nRe} restorations (not enough excluded redemptions).`);
    });
  }

  t.touch();
  sb.markDirty();
  return result;
}

/** Counted and excluded redemptions of the given campaign indexes. */
function candidatesByCampaign(t: Traffic, campaigns: Set<number>) {
  const out = new Map<number, { counted: number[]; excluded: number[] }>();
  const camp = t.redCampaign.data;
  const flags = t.redFlags.data;
  for (let i = 0; i < t.redemptionCount; i++) {
    const c = camp[i]!;
    if (!campaigns.has(c)) continue;
    let e = out.get(c);
    if (!e) {
      e = { counted: [], excluded: [] };
      out.set(c, e);
    }
    const f = flags[i]!;
    if (f & FLAG_EXCLUDED) e.excluded.push(i);
    else if (!(f & FLAG_TEST)) e.counted.push(i);
  }
  return out;
}

/** n distinct random elements (partial Fisher-Yates; the input array is shuffled in part). */
function pickRandom(a: number[], n: number, rand: () => number): number[] {
  const m = Math.min(n, a.length);
  for (let k = 0; k < m; k++) {
    const j = k + Math.floor(rand() * (a.length - k));
    const tmp = a[k]!;
    a[k] = a[j]!;
    a[j] = tmp;
  }
  return a.slice(0, m);
}

/** Indexes of the pending redemptions ordered by recordedAt (stable). */
function sortByRecordedAt(p: Pending): Uint32Array | number[] {
  const n = p.n;
  let base = Number.POSITIVE_INFINITY;
  let top = 0;
  for (let k = 0; k < n; k++) {
    const r = p.recordedAt[k]!;
    if (r < base) base = r;
    if (r > top) top = r;
  }
  const SHIFT = 2 ** 24;
  if (n < SHIFT && (top - base + 1) * SHIFT < 2 ** 53) {
    const keys = new Float64Array(n);
    for (let k = 0; k < n; k++) keys[k] = (p.recordedAt[k]! - base) * SHIFT + k;
    keys.sort();
    const out = new Uint32Array(n);
    for (let k = 0; k < n; k++) out[k] = keys[k]! % SHIFT;
    return out;
  }
  const idx = Array.from({ length: n }, (_, k) => k);
  idx.sort((a, b) => p.recordedAt[a]! - p.recordedAt[b]! || a - b);
  return idx;
}
