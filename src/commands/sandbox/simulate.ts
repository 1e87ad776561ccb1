// sandbox simulate: a thin call to POST /_sandbox/simulate on the target sandbox; prints the result.
import { type SimulateRequest, simulateTraffic } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";

export type SandboxSimulateOptions = SimulateRequest;

export async function sandboxSimulateRun(opts: SandboxSimulateOptions, ctx: Context): Promise<void> {
  const result = await simulateTraffic(await ctx.api(), { ...opts });
  printRecord(ctx.io, result, Object.entries(result));
}
