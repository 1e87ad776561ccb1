import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";
import { campaignFields } from "./form.js";
import { resolveCampaign } from "./resolve.js";

export interface CampaignsGetOptions {
  idOrRef: string;
}

export async function campaignsGetRun(o: CampaignsGetOptions, ctx: Context): Promise<void> {
  const campaign = await resolveCampaign(await ctx.api(), o.idOrRef);
  printRecord(ctx.io, campaign, campaignFields(campaign));
}
