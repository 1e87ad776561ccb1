// links job CAMPAIGN JOB_ID [--wait]: show an assignment job, or follow it to the end.
import { getAssignmentJob } from "../../api/links.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import { resolveCampaign } from "../campaigns/resolve.js";
import { clearJob, followJob, isFinished, jobFields, jobKey, reportOutcome } from "./jobs.js";

export interface LinksJobOptions {
  campaign: string;
  jobId: string;
  wait?: boolean | undefined;
  timeout?: number | undefined;
  unassignable?: string | undefined;
  bom?: boolean | undefined;
}

export async function linksJobRun(o: LinksJobOptions, ctx: Context): Promise<void> {
  if (o.bom && o.unassignable === undefined)
    throw new UsageError(
      "--bom applies to the --unassignable file.",
      "Add --unassignable FILE, or drop --bom.",
    );
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.campaign);
  const jobId = o.jobId.trim();
  let job = await getAssignmentJob(api, campaign.id, jobId);
  if (!o.wait) {
    if (isFinished(job)) await clearJob(ctx, await jobKey(ctx, api, campaign.id), job.id);
    printRecord(ctx.io, job, jobFields(job));
    if (!isFinished(job)) ctx.io.err(`Job ${job.id} is ${job.status}; add --wait to follow it to the end.`);
    return;
  }
  if (!isFinished(job)) job = await followJob(ctx, api, campaign, o.campaign, job.id, o.timeout ?? 600_000);
  await clearJob(ctx, await jobKey(ctx, api, campaign.id), job.id);
  await reportOutcome(ctx, {
    job,
    selection: null,
    unassignableFile: o.unassignable,
    unassignableBom: o.bom,
  });
}
