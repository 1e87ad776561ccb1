// campaigns activate ID_OR_REF: POST /campaigns/{id}/status with status "active" (src/commands/campaigns/status.ts).
import type { Context } from "../../context.js";
import { campaignsStatusRun } from "./status.js";

export interface CampaignsActivateOptions {
  idOrRef: string;
}

export async function campaignsActivateRun(o: CampaignsActivateOptions, ctx: Context): Promise<void> {
  await campaignsStatusRun({ idOrRef: o.idOrRef, status: "active" }, ctx);
}
