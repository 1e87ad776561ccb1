// events list: the event log from a position, one request's worth (default), to its end (--all), or
// at most --limit events across requests of --page-size.
import { listEvents } from "../../api/events.js";
import { type Batch, feedPages } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import type { EventEnvelope } from "../../spec/events.js";
import { LIMITS } from "../../spec/limits.js";
import { checkLimit, printCapped } from "../shared/list.js";
import { checkTypeArg } from "../webhooks/shared.js";
import { EVENT_COLUMNS } from "./format.js";

export interface EventsListOptions {
  type?: string | undefined;
  after?: string | undefined;
  /** The most events printed, across as many requests as it takes. */
  limit?: number | undefined;
  /** Events per request (the API's `limit`). */
  pageSize?: number | undefined;
  /** Read to the end of the log. */
  all?: boolean | undefined;
}

function checkPageSize(n: number | undefined): void {
  if (n !== undefined && !(Number.isInteger(n) && n >= 1 && n <= LIMITS.feedLimitMax))
    throw new UsageError(`--page-size must be a whole number from 1 to ${LIMITS.feedLimitMax}.`);
}

/**
 * --json prints {items, nextCursor} (the cursor is needed to go on). With --limit each request asks
 * for no more than the events still wanted, so the cap never falls inside a page and nextCursor is
 * exactly where the next run goes on.
 */
export async function eventsListRun(o: EventsListOptions, ctx: Context): Promise<void> {
  const type = o.type ? checkTypeArg(o.type) : undefined;
  checkLimit(o.limit);
  checkPageSize(o.pageSize);
  const api = await ctx.api();
  const walk = Boolean(o.all) || o.limit !== undefined;
  const perRequest = o.pageSize ?? (walk ? LIMITS.feedLimitMax : undefined);
  let shown = 0;
  let nextCursor: string | null = null;
  async function* batches(): AsyncGenerator<Batch<EventEnvelope>> {
    const room = () =>
      o.limit === undefined ? perRequest : Math.min(perRequest ?? o.limit, o.limit - shown);
    for await (const p of feedPages((after) => listEvents(api, { after, type, limit: room() }), o.after)) {
      nextCursor = p.nextCursor;
      shown += p.items.length;
      yield { items: p.items, more: p.nextCursor !== null };
      if (!walk) return;
    }
  }
  const json = ctx.io.json && ctx.io.format !== "ndjson";
  await printCapped(ctx.io, batches(), EVENT_COLUMNS, {
    limit: o.limit,
    emptyNote: "No events after this position.",
    ...(json ? { jsonTail: () => ({ nextCursor }) } : {}),
  });
  if (nextCursor)
    ctx.io.err(`More events: partner-cli events list --after ${nextCursor}${type ? ` --type ${type}` : ""}`);
}
