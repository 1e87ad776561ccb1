// events list: one page of the event log as the API returns it.
import { listEvents } from "../../api/events.js";
import type { Context } from "../../context.js";
import { printList } from "../../io/render.js";
import { checkTypeArg } from "../webhooks/shared.js";
import { EVENT_COLUMNS } from "./format.js";

export interface EventsListOptions {
  type?: string | undefined;
  after?: string | undefined;
  limit?: number | undefined;
}

/** One page of the log. --json prints the API's page {items, nextCursor} (the cursor is needed to go on). */
export async function eventsListRun(o: EventsListOptions, ctx: Context): Promise<void> {
  const type = o.type ? checkTypeArg(o.type) : undefined;
  const page = await listEvents(await ctx.api(), { after: o.after, type, limit: o.limit });
  if (page.nextCursor)
    ctx.io.err(
      `More events: partner-cli events list --after ${page.nextCursor}${type ? ` --type ${type}` : ""}`,
    );
  // JSON is the API's page (the cursor is needed to go on); NDJSON and the tables are its events.
  if (ctx.io.json && ctx.io.format !== "ndjson") {
    ctx.io.outJson(page);
    return;
  }
  printList(ctx.io, page.items, EVENT_COLUMNS, "No events after this position.");
}
