// campaigns end ID_OR_REF: POST /campaigns/{id}/status with status "ended" (src/commands/campaigns/status.ts).
import type { Context } from "../../context.js";
import { campaignsStatusRun } from "./status.js";

export interface CampaignsEndOptions {
  idOrRef: string;
}

export async function campaignsEndRun(o: CampaignsEndOptions, ctx: Context): Promise<void> {
  await campaignsStatusRun({ idOrRef: o.idOrRef, status: "ended" }, ctx);
}
