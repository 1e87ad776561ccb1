// The event log (spec: Event log): GET /events (last 30 days on the sandbox clock, oldest first by
// occurredAt then id, opaque cursor), GET /events/types, GET /events/{id}.
//
// Cursor: base64url of {"v":1,"o":<occurredAt>,"i":<id>}, the position of the last item of a page;
// `after` returns the items strictly after that position. nextCursor is null exactly when no item
// (of the filter) follows the page at the time of the read, so a reader stops there, keeps the last
// non-null cursor, and re-reads the last page next time (spec: Recovery, Feeds).
import { EVENT_TYPE_DESCRIPTIONS, EVENT_TYPES, isEventType } from "../../spec/events.js";
import { LIMITS } from "../../spec/limits.js";
import { invalid, notFound } from "../errors.js";
import { toIso } from "../clock.js";
import { type FeedFault, feedFault } from "../faults.js";
import { ok, type Handlers } from "../http.js";
import type { EventEnvelope, OrgState } from "../store.js";

const RETENTION_MS = LIMITS.eventRetentionDays * 86_400_000;

interface Position {
  o: string;
  i: string;
}

function cmp(a: Position, b: Position): number {
  if (a.o !== b.o) return a.o < b.o ? -1 : 1;
  return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
}
const posOf = (e: EventEnvelope): Position => ({ o: e.occurredAt, i: e.id });

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify({ v: 1, o: p.o, i: p.i }), "utf8").toString("base64url");
}

export function decodeCursor(raw: string): Position {
  const bad = () =>
    invalid(
      "The after cursor is not valid; pass a nextCursor returned by GET /events (an event or delivery id is not a cursor).",
      {
        after: ["is not a valid cursor"],
      },
    );
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw bad();
  try {
    const v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Record<string, unknown>;
    if (v?.v === 1 && typeof v.o === "string" && typeof v.i === "string" && !Number.isNaN(Date.parse(v.o)))
      return { o: v.o, i: v.i };
  } catch {
    // fall through
  }
  throw bad();
}

function lowerBoundAfter(sorted: EventEnvelope[], p: Position): number {
  // First index whose position is strictly greater than p.
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (cmp(posOf(sorted[mid]!), p) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The organization's log sorted by (occurredAt, id), an index the state owns (OrgState.eventsSorted),
 * maintained incrementally: appended events are inserted in place; any other change to the log
 * (pruning, reset) rebuilds it.
 */
export function sortedEvents(state: OrgState): EventEnvelope[] {
  const src = state.events;
  let ix = state.eventsSorted;
  if (!ix || ix.source !== src || src.length < ix.seen || src[0] !== ix.first) {
    const sorted = [...src].sort((a, b) => cmp(posOf(a), posOf(b)));
    ix = { source: src, seen: src.length, first: src[0], sorted };
    // Not enumerable: never persisted.
    Object.defineProperty(state, "eventsSorted", {
      value: ix,
      enumerable: false,
      writable: true,
      configurable: true,
    });
    return sorted;
  }
  for (let k = ix.seen; k < src.length; k++) {
    const e = src[k]!;
    const at = lowerBoundAfter(ix.sorted, posOf(e));
    if (at === ix.sorted.length) ix.sorted.push(e);
    else ix.sorted.splice(at, 0, e);
  }
  ix.seen = src.length;
  return ix.sorted;
}

function limitParam(q: URLSearchParams): number {
  const raw = q.get("limit");
  if (raw === null || raw.trim() === "") return LIMITS.feedLimitDefault;
  if (!/^[-+]?\d+$/.test(raw.trim()))
    throw invalid("limit must be an integer.", { limit: ["must be an integer"] });
  const n = Number(raw);
  return Math.min(Math.max(Number.isFinite(n) ? n : LIMITS.feedLimitMax, 1), LIMITS.feedLimitMax);
}

function retained(nowMs: number) {
  const cutoff = nowMs - RETENTION_MS;
  return (e: EventEnvelope) => Date.parse(e.occurredAt) >= cutoff;
}

/**
 * The log's page as an injected feed fault makes it (faults.ts feedFault), or undefined when the fault
 * leaves it alone. Offsets count the items of the filter, so the whole filtered log is listed.
 */
function faultyList(
  sorted: EventEnvelope[],
  match: (e: EventEnvelope) => boolean,
  q: { after: Position | undefined; afterRaw: string | null; limit: number; fault: FeedFault },
) {
  const all = sorted.filter(match);
  const start = q.after ? lowerBoundAfter(all, q.after) : 0;
  const page = { start, size: q.limit, total: all.length, after: q.afterRaw || undefined };
  const plan = feedFault(q.fault, page);
  if (!plan) return undefined;
  let items = all.slice(plan.from, plan.to);
  if (plan.backwards) {
    const shift = Date.parse(items[0]!.occurredAt) - Date.parse(all[plan.from - 1]!.occurredAt) + 1000;
    items = items.map((e) => ({
      ...e,
      occurredAt: toIso(Date.parse(e.occurredAt) - shift),
    }));
  }
  const cursorAt = (o: number) => (o > 0 ? encodeCursor(posOf(all[o - 1]!)) : null);
  const nextCursor = plan.next === "after" ? q.afterRaw : plan.next === null ? null : cursorAt(plan.next);
  return ok({ items, nextCursor });
}

export const eventHandlers = {
  types: () => ok(EVENT_TYPES.map((type) => ({ type, description: EVENT_TYPE_DESCRIPTIONS[type] }))),
  list: ({ state, query, sb }) => {
    const limit = limitParam(query);
    const type = query.get("type");
    if (type !== null && type !== "" && !isEventType(type))
      throw invalid("The type filter is not a supported event type.", {
        type: [`must be one of ${EVENT_TYPES.join(", ")}`],
      });
    const afterRaw = query.get("after");
    const after = afterRaw ? decodeCursor(afterRaw) : undefined;
    const keep = retained(sb.clock.nowMs());
    const sorted = sortedEvents(state);
    const fault = sb.faults.config.feed;
    if (fault?.feed === "events") {
      const match = (e: EventEnvelope) => (!type || e.type === type) && keep(e);
      const faulty = faultyList(sorted, match, { after, afterRaw, limit, fault });
      if (faulty) return faulty;
    }
    const items: EventEnvelope[] = [];
    let more = false;
    for (let k = after ? lowerBoundAfter(sorted, after) : 0; k < sorted.length; k++) {
      const e = sorted[k]!;
      if (type && e.type !== type) continue;
      if (!keep(e)) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(e);
    }
    const last = items[items.length - 1];
    return ok({ items, nextCursor: more && last ? encodeCursor(posOf(last)) : null });
  },
  get: ({ state, params, sb }) => {
    const keep = retained(sb.clock.nowMs());
    const e = state.events.find((x) => x.id === params.id);
    if (!e || !keep(e)) throw notFound("Event");
    return ok(e);
  },
} satisfies Handlers;
