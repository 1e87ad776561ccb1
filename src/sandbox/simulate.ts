// Shopper traffic for the sandbox (POST /_sandbox/simulate; `partner-cli sandbox simulate`): link
// views, code claims through creators' links, staff test codes, redemptions, exclusions and
// restorations, with the events the spec names and the supply alerts. docs/sandbox/traffic.md
// describes every choice made here.
//
// A call is planned first (validation, targets, counts, time window: nothing changes before the plan
// stands), then applied by named steps per target campaign: views, codes (claims and test codes,
// under the supply rules of domain/supply.ts), redemptions; then the new redemptions are recorded in
// feed order, then corrections (exclusions and restorations, one `correct(kind)`).
//
// Bulk path: rows go straight into the typed-array columns of the traffic store (domain/traffic.ts).
// Every claim, redemption, exclusion and restoration emits its event, as the spec says, whatever the
// volume (each event is one prepared INSERT in the call's one transaction). `events: false` leaves
// the per-item events out (a bench that needs only rows); the answer and GET /_sandbox/status then
// say the event log is incomplete.
import { randomInt } from "node:crypto";
import { z } from "zod";
import { Timestamp } from "../spec/kit.js";
import {
  campaignReference,
  campaignsOf,
  findCampaign,
  findCampaignByIdOrReference,
  recordRedeemed,
} from "./domain/campaigns.js";
import { addDays, dayOfMs, startOfDayMs } from "../spec/days.js";
import { linksOf } from "./domain/links.js";
import { isoOfSec, RedemptionRenderer } from "./domain/redemption-render.js";
import { checkSupply, codesAvailable, handOutCodes, whyNoClaims, whyNoTestCodes } from "./domain/supply.js";
import { FLAG_EXCLUDED, FLAG_TEST, NO_CREATOR, type Traffic } from "./domain/traffic.js";
import { invalid, notFound } from "./errors.js";
import type { Sandbox } from "./sandbox.js";
import { type CampaignRecord, type OrgState, trafficOf } from "./store.js";

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
  /** Emit per-item events (default true, as the spec says); false leaves them out (the log is then incomplete). */
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
  /** Whether per-item events were emitted (false only when the call asked for events: false). */
  itemEvents: boolean;
  /** "incomplete" once any call left its events out (until a reset): a feed copy would miss them. */
  eventLog: "complete" | "incomplete";
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

/** The counts a call asks for, defaults applied (claims stay undefined: they follow redemptions). */
interface Want {
  views: number;
  claims: number | undefined;
  testCodes: number;
  redemptions: number;
  testRedemptions: number;
  exclusions: number;
  restorations: number;
}

/** One simulate call, planned: what is asked, of which campaigns, when; and what was done so far. */
interface Plan {
  sb: Sandbox;
  state: OrgState;
  t: Traffic;
  body: SimulateBody;
  rand: () => number;
  nowS: number;
  /** Everything at this instant (body.at), else spread over [windowStart, windowEnd]. */
  atS: number | undefined;
  windowStart: number;
  windowEnd: number;
  /** Epoch second of the start of a day in the reporting time zone. */
  dayStartS: (day: string) => number;
  targets: CampaignRecord[];
  want: Want;
  /** Claims asked of all targets together. */
  claimsAsked: number;
  /** No count was sent: the defaults (50 views, 20 claims, 10 redemptions) apply. */
  nothingAsked: boolean;
  excludeIdx: number[];
  restoreIdx: number[];
  itemEvents: boolean;
  renderer: RedemptionRenderer;
  /** Redemptions picked by this call, recorded (in recordedAt order) after every target. */
  pending: Pending;
  result: SimulateResult;
}

/** One target campaign of the plan, with its share of the counts and its time window. */
interface Target {
  rec: CampaignRecord;
  /** Campaign index in the traffic store. */
  ci: number;
  /** Creators (traffic store indexes) of its active links. */
  linkCreators: number[];
  label: string;
  /** This target's share of a count asked of all targets. */
  share: (n: number) => number;
  /** When its claims happen: its dates within the asked window, a second before the window ends. */
  lo: number;
  hi: number;
  inDates: boolean;
}

/** Runs one simulate call. Validation errors are thrown before anything changes. */
export function simulate(sb: Sandbox, state: OrgState, body: SimulateBody): SimulateResult {
  const p = plan(sb, state, body);
  if (p.targets.length === 0 && !p.excludeIdx.length && !p.restoreIdx.length) {
    p.result.notes.push(
      "No active campaign: nothing to simulate (activate a campaign or name one with campaign).",
    );
    return p.result;
  }
  p.targets.forEach((rec, k) => {
    const target = targetOf(p, rec, k);
    views(p, target);
    codes(p, target);
    redemptions(p, target);
  });
  recordRedemptions(p);
  corrections(p);
  p.t.touch();
  leftOut(p);
  sb.markDirty();
  return p.result;
}

/** A call without its events: the store remembers that the log is incomplete, the answer says so. */
function leftOut(p: Plan): void {
  const r = p.result;
  const items = r.claims + r.redemptions + r.exclusions + r.restorations;
  if (p.itemEvents || items === 0) return;
  const was = p.sb.store.eventsIncomplete;
  p.sb.store.eventsIncomplete = {
    since: was?.since ?? p.sb.clock.iso(),
    items: (was?.items ?? 0) + items,
  };
  r.eventLog = "incomplete";
  r.notes.push(
    `events: false: ${items.toLocaleString("en-US")} claims, redemptions and corrections have no event; the event log is incomplete until a reset (a sync from it would miss them).`,
  );
}

/** Validates the call and plans it; throws before anything changes. */
function plan(sb: Sandbox, state: OrgState, body: SimulateBody): Plan {
  const t = trafficOf(state);
  const tz = state.org.reportingTimeZone;
  const nowMs = sb.clock.nowMs();
  const nowS = Math.floor(nowMs / 1000);
  const rand = prng(body.seed);
  const atS = instantOf(body, nowS);
  const excludeIdx = redemptionIndexes(t, body.exclude);
  const restoreIdx = redemptionIndexes(t, body.restore);
  const targets = targetsOf(state, body);
  const { want, claimsAsked, nothingAsked } = wanted(body);
  const itemEvents = itemEventsOf(body);
  const dayStartS = (day: string) => Math.floor(startOfDayMs(day, tz) / 1000);
  const days = body.days ?? 1;
  return {
    sb,
    state,
    t,
    body,
    rand,
    nowS,
    atS,
    windowStart: dayStartS(addDays(dayOfMs(nowMs, tz), -(days - 1))),
    windowEnd: nowS - 1,
    dayStartS,
    targets,
    want,
    claimsAsked,
    nothingAsked,
    excludeIdx,
    restoreIdx,
    itemEvents,
    renderer: new RedemptionRenderer(state, t),
    pending: pendingOf(Math.min(MAX_ITEMS, want.redemptions + want.testRedemptions)),
    result: {
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
      eventLog: sb.store.eventsIncomplete ? "incomplete" : "complete",
      notes: [],
    },
  };
}

/** body.at as an epoch second (it must be in the sandbox clock's past, and not combined with days). */
function instantOf(body: SimulateBody, nowS: number): number | undefined {
  let atS: number | undefined;
  if (body.at !== undefined) {
    atS = Math.floor(Date.parse(body.at) / 1000);
    if (!(atS < nowS))
      throw invalid("at must be before the sandbox clock's now.", { at: ["must be in the past"] });
  }
  if (body.at !== undefined && body.days !== undefined)
    throw invalid("Send days or at, not both.", { at: ["must not be combined with days"] });
  return atS;
}

/** The traffic store indexes of redemption ids (404 on the first unknown one). */
function redemptionIndexes(t: Traffic, ids: string[] = []): number[] {
  const bad: string[] = [];
  const out: number[] = [];
  for (const id of ids) {
    const i = t.redemptionIds.indexOf(id);
    if (i === undefined || i >= t.redemptionCount) bad.push(id);
    else out.push(i);
  }
  if (bad.length > 0) throw notFound(`Redemption ${bad[0]}`);
  return out;
}

/** The named campaign (id or externalReference), else every active campaign. */
function targetsOf(state: OrgState, body: SimulateBody): CampaignRecord[] {
  if (body.campaign === undefined)
    return [...campaignsOf(state).values()].filter((c) => c.status === "active");
  const rec = findCampaignByIdOrReference(state, body.campaign);
  if (!rec) throw notFound(`Campaign ${body.campaign}`);
  return [rec];
}

function wanted(body: SimulateBody): { want: Want; claimsAsked: number; nothingAsked: boolean } {
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
  const want: Want = {
    views: body.views ?? (nothingAsked ? 50 : 0),
    claims: body.claims,
    testCodes: body.testCodes ?? 0,
    redemptions: body.redemptions ?? (nothingAsked ? 10 : 0),
    testRedemptions: body.testRedemptions ?? 0,
    exclusions: body.exclusions ?? 0,
    restorations: body.restorations ?? 0,
  };
  return { want, claimsAsked: want.claims ?? (nothingAsked ? 20 : 0), nothingAsked };
}

/** Whether per-item events are emitted: always, unless the call asks for events: false. */
function itemEventsOf(body: SimulateBody): boolean {
  return body.events ?? true;
}

function targetOf(p: Plan, rec: CampaignRecord, k: number): Target {
  const { t, atS } = p;
  const links = [...linksOf(p.state, rec.id).values()].filter((l) => l.active);
  // The campaign's own window: its dates (in the reporting time zone) within the asked window.
  const campStart = p.dayStartS(rec.dates.from);
  const campEnd = p.dayStartS(addDays(rec.dates.through, 1)) - 1;
  const lo = atS ?? Math.max(p.windowStart, campStart);
  // Claims end a second before the window does, so each can still be redeemed within the window.
  const hi = atS ?? Math.min(p.windowEnd - 1, campEnd);
  return {
    // Read again at each use: handing out codes writes the record.
    get rec() {
      return findCampaign(p.state, rec.id) ?? rec;
    },
    ci: t.campaigns.intern(rec.id),
    linkCreators: links.map((l) => t.creators.intern(l.externalId)),
    label: rec.externalReference ?? rec.id,
    share: (n) => share(n, k, p.targets.length),
    lo,
    hi,
    inDates: lo <= hi && (atS === undefined || (atS >= campStart && atS <= campEnd)),
  };
}

const randIn = (p: Plan, lo: number, hi: number) =>
  hi <= lo ? lo : lo + Math.floor(p.rand() * (hi - lo + 1));

const pickOrigin = (p: Plan) =>
  p.body.origin !== undefined
    ? p.t.origins.intern(p.body.origin)
    : p.t.origins.intern(originName(Math.floor(p.rand() * (p.body.origins ?? 50))));

const pickCreator = (p: Plan, c: Target) => c.linkCreators[Math.floor(p.rand() * c.linkCreators.length)]!;

function emit(p: Plan, type: string, data: Record<string, unknown>): void {
  p.sb.emit(p.state, type, data);
  p.result.events++;
}

/** Link opens of the target's active links, anywhere in the window. */
function views(p: Plan, c: Target): void {
  const n = c.share(p.want.views);
  if (n <= 0) return;
  if (c.linkCreators.length === 0) {
    p.result.notes.push(`${c.label}: no active links, so no views.`);
    return;
  }
  const lo = p.atS ?? p.windowStart;
  const hi = p.atS ?? p.windowEnd;
  for (let v = 0; v < n; v++) p.t.addView(c.ci, pickCreator(p, c), pickOrigin(p), randIn(p, lo, hi));
  p.result.views += n;
}

/**
 * Codes: shopper claims, then staff test codes. A limit raised since the last check may have ended a
 * supply incident: look first (no alert can be due before codes are handed out).
 */
function codes(p: Plan, c: Target): void {
  checkSupply(p.sb, p.state, c.rec);
  const claimed = claims(p, c);
  const prepared = testCodes(p, c);
  if (claimed > 0 || prepared > 0) p.result.events += checkSupply(p.sb, p.state, c.rec);
}

function claims(p: Plan, c: Target): number {
  const { t, state } = p;
  const { rec } = c;
  const asked =
    p.want.claims !== undefined || p.nothingAsked
      ? c.share(p.claimsAsked)
      : Math.max(0, c.share(p.want.redemptions) - t.unredeemed(c.ci).shopper.length);
  if (asked <= 0) return 0;
  const why = whyNoClaims(state, rec, { inDates: c.inDates, hasLinks: c.linkCreators.length > 0 });
  const n = why ? 0 : Math.min(asked, codesAvailable(state, rec));
  if (n < asked) p.result.notes.push(`${c.label}: ${n} of ${asked} claims (${why ?? "codes ran out"}).`);
  if (n <= 0) return 0;
  const times = new Uint32Array(n);
  for (let k = 0; k < n; k++) times[k] = randIn(p, c.lo, c.hi);
  times.sort();
  t.reserveCodes(n);
  for (let k = 0; k < n; k++) {
    const creator = pickCreator(p, c);
    const code = t.addCode(c.ci, creator, times[k]!);
    if (p.itemEvents)
      emit(p, "code.issued", {
        claimId: t.claimIds.idOf(code),
        campaign: campaignReference(rec),
        creator: { ...p.renderer.creator(creator).obj! },
        issuedAt: isoOfSec(times[k]!),
      });
  }
  handOutCodes(state, rec, n, "claims");
  p.result.claims += n;
  return n;
}

function testCodes(p: Plan, c: Target): number {
  const asked = c.share(p.want.testCodes);
  if (asked <= 0) return 0;
  const why = whyNoTestCodes(p.state, c.rec);
  const n = why ? 0 : Math.min(asked, codesAvailable(p.state, c.rec));
  if (n < asked) p.result.notes.push(`${c.label}: ${n} of ${asked} test codes (${why ?? "codes ran out"}).`);
  if (n <= 0) return 0;
  p.t.reserveCodes(n);
  const lo = p.atS ?? p.windowStart;
  for (let k = 0; k < n; k++) p.t.addCode(c.ci, NO_CREATOR, randIn(p, lo, p.atS ?? p.windowEnd));
  handOutCodes(p.state, c.rec, n, "test");
  p.result.testCodes += n;
  return n;
}

/** Redemptions of handed-out codes (and of test codes): picked at random among unredeemed ones. */
function redemptions(p: Plan, c: Target): void {
  const u = p.t.unredeemed(c.ci);
  const n = c.share(p.want.redemptions);
  if (n > 0) p.result.redemptions += redeem(p, c, u.shopper, n, "redemptions");
  const nTest = c.share(p.want.testRedemptions);
  if (nTest > 0) p.result.testRedemptions += redeem(p, c, u.test, nTest, "test redemptions");
}

function redeem(p: Plan, c: Target, pool: number[], n: number, kind: string): number {
  const { t, pending } = p;
  const end = p.atS ?? p.windowEnd;
  let done = 0;
  const skipped: number[] = [];
  while (done < n && pool.length > 0) {
    const j = Math.floor(p.rand() * pool.length);
    const code = pool[j]!;
    pool[j] = pool[pool.length - 1]!;
    pool.pop();
    if (t.codeRedemption.data[code] !== -1) continue;
    const issuedAt = t.codeIssuedAt.data[code]!;
    if (issuedAt >= end) {
      skipped.push(code);
      continue;
    }
    const redeemedAt = p.atS ?? randIn(p, issuedAt + 1, end);
    const k = pending.n++;
    pending.code[k] = code;
    pending.redeemedAt[k] = redeemedAt;
    pending.recordedAt[k] = Math.min(p.nowS, redeemedAt + 1 + Math.floor(p.rand() * 900));
    t.codeRedemption.data[code] = -2; // taken by this call
    done++;
  }
  pool.push(...skipped);
  if (done < n)
    p.result.notes.push(`${c.label}: ${done} of ${n} ${kind} (not enough unredeemed codes issued before).`);
  return done;
}

/** Appends the new redemptions in recordedAt order (recordedAt never goes below the last one). */
function recordRedemptions(p: Plan): void {
  const { t, pending } = p;
  const n = pending.n;
  if (n === 0) return;
  const order = sortByRecordedAt(pending);
  t.reserveRedemptions(n);
  // Never before the last recorded one (feed order), nor at or before an asOf already handed out.
  let last = Math.max(t.lastRecordedAt, t.asOfFloor + 1);
  const first = t.redemptionCount;
  for (let k = 0; k < n; k++) {
    const q = order[k]!;
    const recordedAt = Math.max(last, pending.recordedAt[q]!);
    last = recordedAt;
    const code = pending.code[q]!;
    t.codeRedemption.data[code] = -1;
    t.addRedemption(code, pending.redeemedAt[q]!, recordedAt);
  }
  const counted = new Map<string, number>();
  for (let i = first; i < first + n; i++) {
    if (t.redFlags.data[i]! & FLAG_TEST) continue;
    const campaignId = t.campaigns.get(t.redCampaign.data[i]!);
    counted.set(campaignId, (counted.get(campaignId) ?? 0) + 1);
    if (p.itemEvents)
      emit(p, "redemption.recorded", p.renderer.object(i) as unknown as Record<string, unknown>);
  }
  for (const [campaignId, count] of counted) recordRedeemed(p.state, campaignId, count);
}

type Correction = "exclude" | "restore";

/**
 * Excludes or restores one redemption (no-op, false, when it already is so): its flags, the
 * campaign's redeemed count and the correction event (test redemptions count nowhere, no event).
 */
function correct(p: Plan, kind: Correction, i: number, reason: string | null): boolean {
  const { t, state } = p;
  const excluding = kind === "exclude";
  const f = t.redFlags.data[i]!;
  if (excluding === Boolean(f & FLAG_EXCLUDED)) return false;
  t.redFlags.data[i] = excluding ? f | FLAG_EXCLUDED : f & ~FLAG_EXCLUDED;
  t.redExcludedAt.data[i] = excluding ? p.nowS : 0;
  t.redReason.data[i] = excluding && reason !== null ? t.reasons.intern(reason) : 0;
  const campaignId = t.campaigns.get(t.redCampaign.data[i]!);
  const rec = findCampaign(state, campaignId);
  if (!(f & FLAG_TEST) && rec) {
    recordRedeemed(state, campaignId, excluding ? -1 : 1);
    if (p.itemEvents)
      emit(p, excluding ? "redemption.excluded" : "redemption.restored", {
        redemptionId: t.redemptionIds.idOf(i),
        campaign: campaignReference(rec),
        creator: p.renderer.object(i).creator,
        [excluding ? "excludedAt" : "restoredAt"]: isoOfSec(p.nowS),
        reason: reason ?? "",
      });
  }
  if (excluding) p.result.exclusions++;
  else p.result.restorations++;
  return true;
}

function reasonOf(p: Plan, kind: Correction): string | null {
  if (kind === "restore") return p.body.reason ?? RESTORATION_REASON;
  return p.body.reason !== undefined
    ? p.body.reason
    : EXCLUSION_REASONS[Math.floor(p.rand() * EXCLUSION_REASONS.length)]!;
}

/** Corrections: the explicit ids first, then random picks within the targets. */
function corrections(p: Plan): void {
  for (const i of p.excludeIdx) correct(p, "exclude", i, reasonOf(p, "exclude"));
  for (const i of p.restoreIdx) correct(p, "restore", i, reasonOf(p, "restore"));
  if (p.want.exclusions <= 0 && p.want.restorations <= 0) return;
  const { t } = p;
  const byCampaign = candidatesByCampaign(t, new Set(p.targets.map((c) => t.campaigns.intern(c.id))));
  p.targets.forEach((rec, k) => {
    const c = { label: rec.externalReference ?? rec.id, share: (n: number) => share(n, k, p.targets.length) };
    const cand = byCampaign.get(t.campaigns.intern(rec.id)) ?? { counted: [], excluded: [] };
    const excluded = correctRandom(p, c, "exclude", cand.counted);
    // Exclusions made by this call may be restored by it too (the candidates were read before).
    cand.excluded.push(...excluded);
    correctRandom(p, c, "restore", cand.excluded);
  });
}

/** Corrects the target's share of the asked count, picked at random among the candidates. */
function correctRandom(
  p: Plan,
  c: Pick<Target, "label" | "share">,
  kind: Correction,
  candidates: number[],
): number[] {
  const n = c.share(kind === "exclude" ? p.want.exclusions : p.want.restorations);
  const picked = pickRandom(candidates, n, p.rand);
  for (const i of picked) correct(p, kind, i, reasonOf(p, kind));
  if (picked.length < n)
    p.result.notes.push(
      kind === "exclude"
        ? `${c.label}: ${picked.length} of ${n} exclusions (not enough counted redemptions).`
        : `${c.label}: ${picked.length} of ${n} restorations (not enough excluded redemptions).`,
    );
  return picked;
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
