// campaigns update: PATCH with only the given fields (spec: PATCH rules 1-6, merge semantics).
import { patchCampaign } from "../../api/campaigns.js";
import type { Context } from "../../context.js";
import { UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { Campaign } from "../../spec/campaigns.js";
import { type CampaignFlags, campaignFields, formatProblems, patchBody, problemLines } from "./form.js";
import { resolveCampaign } from "./resolve.js";

export interface CampaignsUpdateOptions extends Omit<CampaignFlags, "offer" | "externalReference"> {
  idOrRef: string;
  /** commander's --no-retailer: false when given. */
  retailer?: boolean | undefined;
}

export async function campaignsUpdateRun(o: CampaignsUpdateOptions, ctx: Context): Promise<void> {
  const clearRetailer = o.retailer === false;
  const flags: Omit<CampaignFlags, "offer" | "externalReference"> = {
    name: o.name,
    from: o.from,
    through: o.through,
    codeLimit: o.codeLimit,
    rate: o.rate,
    unitPrice: o.unitPrice,
    retailerDomain: o.retailerDomain,
    retailerName: o.retailerName,
  };
  const problems = formatProblems(flags);
  const hasDomain = o.retailerDomain !== undefined;
  const hasName = o.retailerName !== undefined;
  if (clearRetailer && (hasDomain || hasName))
    problems.push({
      flag: "--no-retailer",
      message: "cannot be combined with --retailer-domain/--retailer-name",
    });
  else if (hasDomain !== hasName)
    problems.push({
      flag: hasDomain ? "--retailer-name" : "--retailer-domain",
      message:
        "is needed too: a retailer is set with both --retailer-domain and --retailer-name (to rename, repeat the same domain)",
    });
  if (problems.length) throw new UsageError(`Cannot update the campaign:\n${problemLines(problems)}`);
  const body = patchBody(flags, clearRetailer);
  if (Object.keys(body).length === 0) {
    throw new UsageError(
      "Nothing to update: give at least one of --name, --from, --through, --code-limit, --rate, --unit-price, --retailer-domain with --retailer-name, --no-retailer.",
    );
  }
  const api = await ctx.api();
  const campaign = await resolveCampaign(api, o.idOrRef);
  const updated = await patchCampaign(api, campaign.id, body);
  const label = `"${updated.name}" (${updated.externalReference ?? updated.id})`;
  ctx.io.err(
    // The editable fields as before: the campaign already had these values (a re-run); success.
    editable(updated) === editable(campaign)
      ? `Campaign ${label} already had these values; nothing changed.`
      : `Updated campaign ${label}: ${Object.keys(body).join(", ")}.`,
  );
  printRecord(ctx.io, updated, campaignFields(updated));
}

/** The fields a PATCH can change, as one comparable text. */
function editable(c: Campaign): string {
  return JSON.stringify([
    c.name,
    c.dates.from,
    c.dates.through,
    String(c.commission.rate),
    String(c.commission.estimatedUnitSalePrice),
    c.retailer?.emailDomain ?? null,
    c.retailer?.name ?? null,
    c.codes.limit,
  ]);
}
