// events types: the eight event types and when each is emitted.
import { eventTypes } from "../../api/events.js";
import type { Context } from "../../context.js";
import { type LimitOnly, printSome } from "../shared/list.js";

export async function eventsTypesRun(o: LimitOnly, ctx: Context): Promise<void> {
  const types = await eventTypes(await ctx.api());
  const columns = [
    { header: "type", value: (t: (typeof types)[number]) => t.type },
    { header: "description", value: (t: (typeof types)[number]) => t.description },
  ];
  printSome(ctx.io, types, columns, { limit: o.limit, noun: "types" });
}
