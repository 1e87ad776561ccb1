// events types | get | list: the event log as the API returns it.
import { eventTypes, getEvent, listEvents } from "../../api/events.js";
import type { Context } from "../../context.js";
import { printList, printRecord } from "../../io/render.js";
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
