// sandbox clock: the target sandbox's time and how far it is ahead of real time (see sandbox advance).
import { getSandboxClock } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import type { NoOptions } from "../shared/run.js";
import { printRecord } from "../../io/render.js";

export async function sandboxClockRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const clock = await getSandboxClock(await ctx.api());
  printRecord(ctx.io, clock, [
    ["now", clock.now],
    ["offsetMs", clock.offsetMs],
  ]);
}
