// sandbox simulate: a thin call to POST /_sandbox/simulate on the target sandbox; prints the result.
import { type SimulateRequest, simulateTraffic } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";

export interface SandboxSimulateOptions {
  campaign?: string | undefined;
  views?: number | undefined;
  claims?: number | undefined;
  redemptions?: number | undefined;
  testCodes?: number | undefined;
  exclusions?: number | undefined;
  restorations?: number | undefined;
  seed?: number | undefined;
}

export async function sandboxSimulateRun(opts: SandboxSimulateOptions, ctx: Context): Promise<void> {
  const req: SimulateRequest = {
    campaign: opts.campaign,
    views: opts.views,
    claims: opts.claims,
    redemptions: opts.redemptions,
    testCodes: opts.testCodes,
    exclusions: opts.exclusions,
    restorations: opts.restorations,
    seed: opts.seed,
  };
  const result = await simulateTraffic(await ctx.api(), req);
  printRecord(ctx.io, result, Object.entries(result));
}
