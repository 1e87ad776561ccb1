import { getRedemption } from "../../api/redemptions.js";
import type { Context } from "../../context.js";
import { printRecord } from "../../io/render.js";

export interface RedemptionsGetOptions {
  id: string;
}

export async function redemptionsGetRun({ id }: RedemptionsGetOptions, ctx: Context): Promise<void> {
  const r = await getRedemption(await ctx.api(), id);
  printRecord(ctx.io, r, [
    ["id", r.id],
    ["serializedGs1", r.serializedGs1],
    ["redeemedAt", r.redeemedAt],
    ["recordedAt", r.recordedAt],
    ["countingState", r.countingState],
    ["excludedAt", r.exclusion?.excludedAt],
    ["exclusionReason", r.exclusion?.reason],
    ["campaign", `${r.campaign.name} (${r.campaign.id})`],
    ["externalReference", r.campaign.externalReference],
    ["offer", `${r.offer.baseGs1}${r.offer.title ? ` ${r.offer.title}` : ""}`],
    ["brand", r.brand.name],
    ["creator", r.creator ? `${r.creator.externalId} (${r.creator.name})` : null],
    ["retailer", r.retailer ? r.retailer.emailDomain : null],
  ]);
}
