// events get ID: one event envelope from the log.
import { getEvent } from "../../api/events.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { summarize } from "./format.js";

export interface EventsGetOptions {
  id: string;
}

export async function eventsGetRun({ id }: EventsGetOptions, ctx: Context): Promise<void> {
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
