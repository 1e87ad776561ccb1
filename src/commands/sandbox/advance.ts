// sandbox advance DURATION: move the target sandbox's clock forward and print the new sandbox time.
import { advanceSandboxClock } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";

export interface SandboxAdvanceOptions {
  /** How far, in milliseconds (the CLI parses "2h", "1d", ...). */
  durationMs: number;
}

export async function sandboxAdvanceRun(opts: SandboxAdvanceOptions, ctx: Context): Promise<void> {
  if (!Number.isSafeInteger(opts.durationMs) || opts.durationMs < 0)
    throw new UsageError("The duration must be zero or more; the sandbox clock only moves forward.");
  const clock = await advanceSandboxClock(await ctx.api(), opts.durationMs);
  printRecord(ctx.io, clock, [
    ["now", clock.now],
    ["offsetMs", clock.offsetMs],
  ]);
}
