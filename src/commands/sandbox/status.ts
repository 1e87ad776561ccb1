// sandbox status: where the target sandbox keeps its state, and whether its event log is complete
// (a `sandbox simulate --no-events` leaves events out; the log is complete again after a reset).
import { getSandboxStatus } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import type { NoOptions } from "../shared/run.js";

export async function sandboxStatusRun(_opts: NoOptions, ctx: Context): Promise<void> {
  const s = await getSandboxStatus(await ctx.api());
  printRecord(ctx.io, s, [
    ["now", s.now],
    ["store", s.store],
    ["eventLog", s.eventLog],
    [
      "eventsLeftOut",
      s.eventsLeftOut
        ? `${s.eventsLeftOut.items.toLocaleString("en-US")} items simulated without their events since ${s.eventsLeftOut.since}`
        : "none",
    ],
  ]);
  if (s.eventLog === "incomplete")
    ctx.io.err(
      "The event log is incomplete: a simulate ran with --no-events. A copy made from it (events sync, sync) will not match the redemptions; run `partner-cli sandbox reset` for a complete log.",
    );
}
