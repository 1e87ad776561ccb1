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
import type { EventEnvelope } from "../store.js";

const RETENTION_MS = LIMITS.eventRetentionDays * 86_400_000;

type Position = import("../db-events.js").Position;

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

function limitParam(q: URLSearchParams): number {
  const raw = q.get("limit");
  if (raw === null || raw.trim() === "") return LIMITS.feedLimitDefault;
  if (!/^[-+]?\d+$/.test(raw.trim()))
    throw invalid("limit must be an integer.", { limit: ["must be an integer"] });
  const n = Number(raw);
  return Math.min(Math.max(Number.isFinite(n) ? n : LIMITS.feedLimitMax, 1), LIMITS.feedLimitMax);
}

/** The oldest occurredAt the log still shows (30 days on the sandbox clock; whole seconds). */
function retainedFrom(nowMs: number): string {
  return toIso(Math.ceil((nowMs - RETENTION_MS) / 1000) * 1000);
}

/**
 * The log's page as an injected feed fault makes it (faults.ts feedFault), or undefined when the fault
 * leaves it alone. Offsets count the items of the filter, so the whole filtered log is listed.
 */
function faultyList(
  all: EventEnvelope[],
  q: { after: Position | undefined; afterRaw: string | null; limit: number; fault: FeedFault },
) {
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
    const minOccurredAt = retainedFrom(sb.clock.nowMs());
    const fault = sb.faults.config.feed;
    if (fault?.feed === "events") {
      const faulty = faultyList(state.events.all({ type, minOccurredAt }), { after, afterRaw, limit, fault });
      if (faulty) return faulty;
    }
    const items = state.events.page({ after, type, minOccurredAt, limit: limit + 1 });
    const more = items.length > limit;
    if (more) items.pop();
    const last = items[items.length - 1];
    return ok({ items, nextCursor: more && last ? encodeCursor(posOf(last)) : null });
  },
  get: ({ state, params, sb }) => {
    const e = state.events.get(params.id!);
    if (!e || e.occurredAt < retainedFrom(sb.clock.nowMs())) throw notFound("Event");
    return ok(e);
  },
} satisfies Handlers;
