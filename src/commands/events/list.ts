// events list: one page of the event log as the API returns it.
import { listEvents } from "../../api/events.js";
import type { Context } from "../../context.js";
import { renderTable, renderTsv } from "../../io/render.js";
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
  if (ctx.io.json) {
    ctx.io.outJson(page);
    return;
  }
  if (page.items.length === 0) ctx.io.err("No events after this position.");
  else
    ctx.io.out(
      ctx.io.stdoutIsTTY
        ? renderTable(page.items, EVENT_COLUMNS, ctx.io.color)
        : renderTsv(page.items, EVENT_COLUMNS),
    );
  if (page.nextCursor)
    ctx.io.err(
      `More events: partner-cli events list --after ${page.nextCursor}${type ? ` --type ${type}` : ""}`,
    );
}
