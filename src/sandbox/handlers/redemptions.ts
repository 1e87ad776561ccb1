// Redemptions: GET /redemptions in feed mode (opaque cursor over recordedAt order) or range mode
// (redeemedAt in the reporting time zone, newest first, filters, paging, asOf), and GET /redemptions/{id}.
// Feed pages are written as JSON text straight from the compact columns (no per-row objects).
import { LIMITS } from "../../spec/limits.js";
import { COUNTING_STATES, FEED_MODE_PARAMS, RANGE_MODE_PARAMS } from "../../spec/redemptions.js";
import { toIso } from "../clock.js";
import { brandOf, findCampaign } from "../domain/campaigns.js";
import { dayBoundariesSec } from "../../spec/days.js";
import { rangeInput, resolveRange } from "../domain/dates.js";
import { FLAG_EXCLUDED, FLAG_TEST, type Traffic } from "../domain/traffic.js";
import { invalid, notFound } from "../errors.js";
import type { Handlers, SandboxRequest, SandboxResponse } from "../http.js";
import { pageParams, timestampParam } from "../paging.js";
import { type OrgState, trafficOf } from "../store.js";
import { FeedPageWriter } from "../domain/feed-writer.js";
import { type FeedFaultPlan, feedFault } from "../faults.js";
import { RedemptionRenderer } from "../domain/redemption-render.js";

const CURSOR_PREFIX = "rdm1:";

export function encodeCursor(position: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${position}`).toString("base64url");
}

export function decodeCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const m = /^rdm1:(\d{1,15})$/.exec(text);
  return m ? Number(m[1]) : undefined;
}

const json = (text: string, status = 200): SandboxResponse => ({ status, body: text });
const ITEMS_OPEN = Buffer.from('{"items":[');
const COMMA = Buffer.from(",");

/** The position a feed request starts at (its `after`), and how many it asks for. */
function feedWindow(req: SandboxRequest, t: Traffic): { start: number; size: number } {
  const q = req.query;
  const rawLimit = q.get("limit");
  let size: number = LIMITS.feedLimitDefault;
  if (rawLimit !== null && rawLimit !== "") {
    if (!/^[-+]?\d+$/.test(rawLimit.trim()))
      throw invalid("limit must be an integer.", { limit: ["must be an integer"] });
    size = Number(rawLimit);
    // The spec: at most 1,000 (only the event log clamps); a limit below 1 asks for nothing.
    if (!(size >= 1 && size <= LIMITS.feedLimitMax))
      throw invalid(`limit must be between 1 and 1,000; it was ${rawLimit.trim()}.`, {
        limit: ["must be between 1 and 1,000"],
      });
  }
  const after = q.get("after");
  let start = 0;
  if (after !== null && after !== "") {
    const pos = decodeCursor(after);
    if (pos === undefined || pos > t.redemptionCount)
      throw invalid("after is not a cursor of this feed; use the nextCursor of an earlier page.", {
        after: ["must be a nextCursor returned by this feed"],
      });
    start = pos;
  }
  return { start, size };
}

/** The feed page of redemptions [start, start + size) as JSON bytes, written straight from the columns. */
function feedPageBytes(state: OrgState, t: Traffic, start: number, size: number): Buffer {
  const end = Math.min(t.redemptionCount, start + size);
  const w = new FeedPageWriter(new RedemptionRenderer(state, t), t, (end - start) * 640 + 256);
  w.raw(ITEMS_OPEN);
  for (let i = start; i < end; i++) {
    if (i > start) w.raw(COMMA);
    w.row(i);
  }
  // More items after this page: point at the next one. Otherwise this is the last page currently
  // available: null. A client keeps the cursor that fetched it, so the next run repeats this page.
  const next = end < t.redemptionCount ? `"${encodeCursor(end)}"` : "null";
  w.text(`],"nextCursor":${next}}`);
  return w.bytes();
}

// ---- the next page, built ahead ----
// A feed is read page after page, each request carrying the cursor of the page before. After
// serving a page, the sandbox builds the page that cursor points to while the client is busy with
// the one it got, so that the next request is answered at once. The page is built from the state
// as it is then, and kept only while nothing changes: every change of a sandbox (a write, a
// control call, the clock, simulated traffic, events) passes through markDirty, which bumps the
// count the page is kept with; a redemption added or corrected also changes the traffic's count
// and version. A page that is not asked for next is dropped when the following one is built.

function keptPage(req: SandboxRequest, t: Traffic, start: number, size: number): Buffer | undefined {
  const a = t.aheadPage;
  if (!a) return undefined;
  t.aheadPage = undefined;
  const same =
    a.changes === req.sb.changes &&
    a.version === t.version &&
    a.count === t.redemptionCount &&
    a.start === start &&
    a.size === size;
  return same ? a.body : undefined;
}

function buildAhead(req: SandboxRequest, t: Traffic, start: number, size: number): void {
  if (start >= t.redemptionCount) return;
  const { sb } = req;
  const at = { changes: sb.changes, version: t.version, count: t.redemptionCount };
  setImmediate(() => {
    if (sb.changes !== at.changes || t.version !== at.version || t.redemptionCount !== at.count) return;
    t.aheadPage = { ...at, start, size, body: feedPageBytes(req.state, t, start, size) };
  }).unref();
}

/** A feed page as an injected feed fault makes it (faults.ts feedFault): JSON, edited, written again. */
function faultyPage(req: SandboxRequest, t: Traffic, plan: FeedFaultPlan): SandboxResponse {
  const parse = (from: number, n: number) =>
    JSON.parse(feedPageBytes(req.state, t, from, n).toString("utf8")) as {
      items: { recordedAt: string }[];
      nextCursor: string | null;
    };
  const page = parse(plan.from, plan.to - plan.from);
  if (plan.backwards) {
    const before = parse(plan.from - 1, 1).items[0]!.recordedAt;
    const shift = Date.parse(page.items[0]!.recordedAt) - Date.parse(before) + 1000;
    for (const r of page.items) r.recordedAt = toIso(Date.parse(r.recordedAt) - shift);
  }
  page.nextCursor =
    plan.next === "after" ? req.query.get("after") : plan.next === null ? null : encodeCursor(plan.next);
  return {
    status: 200,
    body: JSON.stringify(page),
    headers: { "content-type": "application/json; charset=utf-8" },
  };
}

function feed(req: SandboxRequest, t: Traffic): SandboxResponse {
  const { start, size } = feedWindow(req, t);
  const fault = req.sb.faults.config.feed;
  if (fault?.feed === "redemptions") {
    const after = req.query.get("after") || undefined;
    const plan = feedFault(fault, { start, size, total: t.redemptionCount, after });
    if (plan) return faultyPage(req, t, plan);
  }
  const body = keptPage(req, t, start, size) ?? feedPageBytes(req.state, t, start, size);
  buildAhead(req, t, Math.min(t.redemptionCount, start + size), size);
  return { status: 200, body, headers: { "content-type": "application/json; charset=utf-8" } };
}

/** Redemption indexes ordered newest first by redeemedAt (then recordedAt, then position), kept per count. */
function newestFirst(t: Traffic): Uint32Array {
  const cached = t.newestFirst;
  if (cached && cached.n === t.redemptionCount) return cached.order;
  const n = t.redemptionCount;
  const red = t.redRedeemedAt.data;
  // Position order is recordedAt order, so sorting by (redeemedAt, position) descending suffices.
  const keys = new Float64Array(n);
  const SHIFT = 2 ** 24;
  let ok = n < SHIFT;
  let base = Number.POSITIVE_INFINITY;
  let top = 0;
  for (let i = 0; i < n; i++) {
    if (red[i]! < base) base = red[i]!;
    if (red[i]! > top) top = red[i]!;
  }
  if ((top - base + 1) * SHIFT >= 2 ** 53) ok = false;
  const order = new Uint32Array(n);
  if (ok) {
    for (let i = 0; i < n; i++) keys[i] = (red[i]! - base) * SHIFT + i;
    keys.sort();
    for (let k = 0; k < n; k++) order[k] = keys[n - 1 - k]! % SHIFT;
  } else {
    const idx = Array.from({ length: n }, (_, i) => i);
    idx.sort((a, b) => red[b]! - red[a]! || b - a);
    order.set(idx);
  }
  t.newestFirst = { n, order };
  return order;
}

function range(req: SandboxRequest, t: Traffic): SandboxResponse {
  const q = req.query;
  const { state, sb } = req;
  const tz = state.org.reportingTimeZone;
  const nowMs = sb.clock.nowMs();
  const r = resolveRange(rangeInput(q), nowMs, tz, { maxDays: LIMITS.rangeDaysMax });
  const countingState = q.get("countingState") || undefined;
  if (countingState !== undefined && !(COUNTING_STATES as readonly string[]).includes(countingState))
    throw invalid(`countingState must be one of ${COUNTING_STATES.join(", ")}.`, {
      countingState: [`must be one of ${COUNTING_STATES.join(", ")}`],
    });
  const brandId = q.get("brandId") || undefined;
  const campaignId = q.get("campaignId") || undefined;
  const asOfMs = timestampParam(q, "asOf") ?? nowMs;
  const asOfS = Math.floor(asOfMs / 1000);
  t.asOfFloor = Math.max(t.asOfFloor, Math.min(asOfS, Math.floor(nowMs / 1000)));
  const paging = pageParams(q);
  const bounds = dayBoundariesSec(r.from, r.through, tz);
  const startS = bounds[0]!;
  const endS = bounds[bounds.length - 1]!;

  // Campaign filter as a per-campaign-index mask (brand and campaign).
  const allowed = new Uint8Array(t.campaigns.values.length);
  t.campaigns.values.forEach((id, ci) => {
    if (campaignId !== undefined && id !== campaignId) return;
    if (brandId !== undefined) {
      const rec = findCampaign(state, id);
      if (!rec || brandOf(state, rec).id !== brandId) return;
    }
    allowed[ci] = 1;
  });
  const wantFlags =
    countingState === undefined
      ? -1
      : countingState === "counted"
        ? 0
        : countingState === "test_code"
          ? FLAG_TEST
          : -2;

  const order = newestFirst(t);
  const red = t.redRedeemedAt.data;
  const rec = t.redRecordedAt.data;
  const camp = t.redCampaign.data;
  const flags = t.redFlags.data;
  const first = paging.page * paging.pageSize;
  const last = first + paging.pageSize;
  const pageItems: number[] = [];
  let total = 0;
  for (let k = 0; k < order.length; k++) {
    const i = order[k]!;
    const at = red[i]!;
    if (at >= endS) continue;
    if (at < startS) break;
    if (rec[i]! > asOfS || !allowed[camp[i]!]) continue;
    if (wantFlags !== -1) {
      const f = flags[i]!;
      if (wantFlags === -2 ? !(f & FLAG_EXCLUDED) : f & FLAG_EXCLUDED || (f & FLAG_TEST) !== wantFlags)
        continue;
    }
    if (total >= first && total < last) pageItems.push(i);
    total++;
  }
  const renderer = new RedemptionRenderer(state, t);
  const head = JSON.stringify({ range: r, asOf: toIso(asOfS * 1000) });
  return json(
    `${head.slice(0, -1)},"items":${renderer.jsonArray(pageItems)},"page":${paging.page},"pageSize":${paging.pageSize},"totalCount":${total}}`,
  );
}

/** The index of a redemption id of this organization, or undefined. */
function redemptionIndex(state: OrgState, id: string): number | undefined {
  const t = trafficOf(state);
  const i = t.redemptionIds.indexOf(id);
  return i !== undefined && i < t.redemptionCount ? i : undefined;
}

export const redemptionHandlers = {
  list: (req) => {
    const t = trafficOf(req.state);
    const rangeParams = RANGE_MODE_PARAMS.filter((p) => req.query.has(p));
    const feedParams = FEED_MODE_PARAMS.filter((p) => req.query.has(p));
    if (rangeParams.length > 0 && feedParams.length > 0) {
      const details: Record<string, string[]> = {};
      for (const p of feedParams)
        details[p] = [`must not be combined with range parameters (${rangeParams.join(", ")})`];
      throw invalid(
        `Feed parameters (${feedParams.join(", ")}) and range parameters (${rangeParams.join(", ")}) cannot be combined.`,
        details,
      );
    }
    return rangeParams.length > 0 ? range(req, t) : feed(req, t);
  },
  get: (req) => {
    const i = redemptionIndex(req.state, req.params.id!);
    if (i === undefined) throw notFound("Redemption");
    return { status: 200, body: new RedemptionRenderer(req.state, trafficOf(req.state)).object(i) };
  },
} satisfies Handlers;
