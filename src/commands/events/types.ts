// events types: the eight event types and when each is emitted.
import { eventTypes } from "../../api/events.js";
import type { Context } from "../../context.js";
import { printList } from "../../io/render.js";
import type { NoOptions } from "../shared/run.js";

export async function eventsTypesRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const types = await eventTypes(await ctx.api());
  printList(ctx.io, types, [
    { header: "type", value: (t) => t.type },
    { header: "description", value: (t) => t.description },
  ]);
}
