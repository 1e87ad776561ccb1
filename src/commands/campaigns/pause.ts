// campaigns pause ID_OR_REF: POST /campaigns/{id}/status with status "paused" (src/commands/campaigns/status.ts).
import type { Context } from "../../context.js";
import { campaignsStatusRun } from "./status.js";

export interface CampaignsPauseOptions {
  idOrRef: string;
}

export async function campaignsPauseRun(o: CampaignsPauseOptions, ctx: Context): Promise<void> {
  await campaignsStatusRun({ idOrRef: o.idOrRef, status: "paused" }, ctx);
}
