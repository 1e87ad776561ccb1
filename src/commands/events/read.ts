// events types | get | list: the event log as the API returns it.
import { eventTypes, getEvent, listEvents } from "../../api/events.js";
import type { Context } from "../../context.js";
import { printList, printRecord, renderTable, renderTsv } from "../../io/render.js";
import { checkTypeArg } from "../webhooks/shared.js";
import { EVENT_COLUMNS, summarize } from "./format.js";

export async function typesRun(ctx: Context): Promise<void> {
  const types = await eventTypes(await ctx.api());
  printList(ctx.io, types, [
    { header: "type", value: (t) => t.type },
    { header: "description", value: (t) => t.description },
  ]);
}

export async function getRun(id: string, ctx: Context): Promise<void> {
  const e = await getEvent(await ctx.api(), id);
  if (ctx.io.json) {
    ctx.io.outJson(e);
    return;
  }
  printRecord(ctx.io, e, [
    ["id", e.id],
    ["type", e.type],
    ["occurredAt", e.occurredAt],
    ["organizationId", e.organizationId],
    ["sample", e.sample],
    ["summary", summarize(e)],
    ["data", JSON.stringify(e.data)],
  ]);
}

export interface ListOptions {
  type?: string | undefined;
  after?: string | undefined;
  limit?: number | undefined;
}

/** One page of the log. --json prints the API's page {items, nextCursor} (the cursor is needed to go on). */
export async function listRun(o: ListOptions, ctx: Context): Promise<void> {
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
