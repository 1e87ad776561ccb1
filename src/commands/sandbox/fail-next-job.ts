// sandbox fail-next-job CAMPAIGN [--off]: the next assignment job queued for the campaign fails
// part-way (status failed, no assignment.completed event), to try the CLI's handling of it.
import { setSandboxFailNextJob } from "../../api/sandbox-control.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { resolveCampaign } from "../campaigns/resolve.js";

export interface SandboxFailNextJobOptions {
  /** A campaign id or external reference. */
  campaign: string;
  /** The next job no longer fails. */
  off?: boolean | undefined;
}

export async function sandboxFailNextJobRun(opts: SandboxFailNextJobOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, opts.campaign);
  const result = await setSandboxFailNextJob(api, campaign.id, !opts.off);
  printRecord(ctx.io, result, [
    ["campaignId", campaign.id],
    ["failNextJob", result.failNextJob],
  ]);
  if (!ctx.io.json)
    ctx.io.err(
      result.failNextJob
        ? `The next assignment job queued for "${campaign.name}" will fail part-way.`
        : `The next assignment job queued for "${campaign.name}" runs normally.`,
    );
}
