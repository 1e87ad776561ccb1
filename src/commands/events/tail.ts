// events tail: follow the event log from now. The first reads walk to the end of the log without
// printing (only the position is kept), then new events print one per line: text on a terminal,
// NDJSON envelopes when piped or with --json. The poll interval grows while nothing happens and
// drops back when events arrive. Runs until Ctrl-C, then exits 0 (it is interactive by nature).
// Each poll is one pass of the resumable-feed loop (export/feed-loop.ts) from the position in memory.
import { listEvents } from "../../api/events.js";
import type { Context } from "../../context.js";
import { CancelledError } from "../../errors.js";
import { BY_OCCURRED_AT, type FeedPosition, runFeed, START } from "../../export/feed-loop.js";
import type { EventEnvelope } from "../../spec/events.js";
import { checkTypeArg } from "../webhooks/shared.js";
import { tailLine } from "./format.js";

export interface TailOptions {
  type?: string | undefined;
  /** Base poll interval, milliseconds. */
  interval?: number | undefined;
  /** Stop after this many polls (tests). */
  maxPolls?: number | undefined;
  /** Called after each poll (tests). */
  onPoll?: ((n: number) => void) | undefined;
}

/** Reads every page after `pos` with the feed loop; returns the new events and the position after them. */
async function readNew(
  ctx: Context,
  pos: FeedPosition,
  type: string | undefined,
): Promise<{ events: EventEnvelope[]; pos: FeedPosition }> {
  const api = await ctx.api();
  const events: EventEnvelope[] = [];
  const r = await runFeed<EventEnvelope>({
    read: (after) => listEvents(api, { after, type, limit: 1000 }),
    idOf: (e) => e.id,
    order: BY_OCCURRED_AT,
    name: "the event log",
    from: pos,
    // Nothing is saved: the position lives in memory until Ctrl-C.
    handle: async (s) => {
      events.push(...s.fresh);
    },
  });
  return { events, pos: r.position };
}

export async function eventsTailRun(o: TailOptions, ctx: Context): Promise<void> {
  const type = o.type ? checkTypeArg(o.type) : undefined;
  const base = o.interval ?? 2_000;
  const max = Math.max(base, Math.min(base * 8, 30_000));
  const asText = ctx.io.stdoutIsTTY && !ctx.io.json;
  let pos: FeedPosition = START;
  const start = await readNew(ctx, pos, type);
  pos = start.pos;
  ctx.io.err(
    `Following the event log${type ? ` (${type})` : ""} from now (${start.events.length} earlier events skipped); Ctrl-C to stop.`,
  );
  let interval = base;
  for (let polls = 0; !ctx.signal.aborted; ) {
    await ctx.clock.sleep(interval, ctx.signal);
    if (ctx.signal.aborted) break;
    let r: Awaited<ReturnType<typeof readNew>>;
    try {
      r = await readNew(ctx, pos, type);
    } catch (err) {
      // Ctrl-C during a request ends the tail like Ctrl-C between polls: exit 0.
      if (err instanceof CancelledError && ctx.signal.aborted) break;
      throw err;
    }
    pos = r.pos;
    for (const e of r.events) ctx.io.out(asText ? `${tailLine(e)}\n` : `${JSON.stringify(e)}\n`);
    interval = r.events.length ? base : Math.min(Math.round(interval * 1.5), max);
    polls++;
    o.onPoll?.(polls);
    if (o.maxPolls !== undefined && polls >= o.maxPolls) break;
  }
  ctx.io.err("Stopped following the event log.");
}
