// campaigns update: PATCH with only the given fields (spec: PATCH rules 1-6, merge semantics).
// Every invalid flag is reported at once, by flag name: the flags' own format, then what the
// campaign's current values and its offer's rules decide; a 400 the service still answers names
// the flags too.
// --dry-run prints the PATCH body beside the campaign's current values instead of sending it.
import { type CampaignPatch, getCampaign, patchCampaign } from "../../api/campaigns.js";
import type { ApiClient } from "../../api/client.js";
import { getOffer } from "../../api/offers.js";
import type { Context } from "../../context.js";
import { ApiError, UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { Campaign } from "../../spec/campaigns.js";
import { patchProblems } from "../../spec/campaign-rules.js";
import type { Offer } from "../../spec/offers.js";
import {
  type CampaignFlags,
  campaignFields,
  byFlag,
  FLAG,
  flagOfField,
  formatProblems,
  type Problem,
  patchBody,
  problemLines,
  ruleValues,
} from "./form.js";
import { resolveCampaign } from "./resolve.js";
import { campaignConflictHint } from "./view-only.js";

export interface CampaignsUpdateOptions extends Omit<CampaignFlags, "offer" | "externalReference"> {
  idOrRef: string;
  /** commander's --no-retailer: false when given. */
  retailer?: boolean | undefined;
  /** Every check (the campaign and its offer read), then the body that would be sent; changes nothing. */
  dryRun?: boolean | undefined;
}

export async function campaignsUpdateRun(o: CampaignsUpdateOptions, ctx: Context): Promise<void> {
  const clearRetailer = o.retailer === false;
  const flags: UpdateFlags = {
    name: o.name,
    from: o.from,
    through: o.through,
    codeLimit: o.codeLimit,
    rate: o.rate,
    unitPrice: o.unitPrice,
    retailerDomain: o.retailerDomain,
    retailerName: o.retailerName,
  };
  if (Object.values(flags).every((v) => v === undefined) && !clearRetailer) {
    throw new UsageError(
      "Nothing to update: give at least one of --name, --from, --through, --code-limit, --rate, --unit-price, --retailer-domain with --retailer-name, --no-retailer.",
    );
  }
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
  const refused = (ps: Problem[], label = "the campaign") =>
    new UsageError(`Cannot update ${label}; nothing was changed:\n${problemLines(ps)}`);

  // The campaign's current values (and its offer's rules) show the rest: every problem at once.
  const api = await ctx.api();
  let campaign: Campaign;
  try {
    campaign = await resolveCampaign(api, o.idOrRef);
  } catch (err) {
    if (problems.length) throw refused(problems);
    throw err;
  }
  const label = `campaign "${campaign.name}" (${campaign.externalReference ?? campaign.id})`;
  const offer = needsOffer(flags)
    ? await getOffer(api, campaign.offer.baseGs1).catch(() => undefined)
    : undefined;
  problems.push(...campaignProblems(flags, clearRetailer, campaign, offer));
  if (problems.length) throw refused(sortByFlag(problems), label);

  const body = patchBody(flags, clearRetailer);
  if (o.dryRun) {
    printDryRun(ctx, campaign, body, label);
    return;
  }
  let updated: Campaign;
  try {
    updated = await patchCampaign(api, campaign.id, body);
  } catch (err) {
    throw await patchError(err, api, campaign);
  }
  const shownLabel = `"${updated.name}" (${updated.externalReference ?? updated.id})`;
  ctx.io.err(
    // The editable fields as before: the campaign already had these values (a re-run); success.
    editable(updated) === editable(campaign)
      ? `Campaign ${shownLabel} already had these values; nothing changed.`
      : `Updated campaign ${shownLabel}: ${Object.keys(body).join(", ")}.`,
  );
  printRecord(ctx.io, updated, campaignFields(updated));
}

type UpdateFlags = Omit<CampaignFlags, "offer" | "externalReference">;

/** The offer is read only for what it decides: days, a raised limit, a retailer. */
function needsOffer(f: UpdateFlags): boolean {
  return [f.from, f.through, f.codeLimit, f.retailerDomain].some((v) => v !== undefined);
}

/** Problems that need the campaign's current values and its offer (PATCH rules 2-4), by flag name. */
function campaignProblems(
  f: UpdateFlags,
  clearRetailer: boolean,
  c: Campaign,
  offer: Offer | undefined,
): Problem[] {
  return byFlag(patchProblems(ruleValues(f, clearRetailer), c, offer), clearRetailer);
}

/** Problems in the order of the flags on the form. */
function sortByFlag(ps: Problem[]): Problem[] {
  const order = [...Object.values(FLAG), "--no-retailer"];
  return [...ps].sort((a, b) => order.indexOf(a.flag) - order.indexOf(b.flag));
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

type Retailer = Campaign["retailer"] | CampaignPatch["retailer"];
const retailerText = (r: Retailer) => (r ? `${r.emailDomain}${r.name ? ` (${r.name})` : ""}` : null);

/** Each field of a PATCH body, dotted (dates.from), with the campaign's current value and the new one. */
function patchChanges(c: Campaign, body: CampaignPatch): { field: string; current: unknown; new: unknown }[] {
  const out: { field: string; current: unknown; new: unknown }[] = [];
  const add = (field: string, current: unknown, next: unknown) => {
    if (next !== undefined) out.push({ field, current, new: next });
  };
  add("name", c.name, body.name);
  add("dates.from", c.dates.from, body.dates?.from);
  add("dates.through", c.dates.through, body.dates?.through);
  add("codeLimit", c.codes.limit, body.codeLimit);
  add("commission.rate", c.commission.rate, body.commission?.rate);
  add(
    "commission.estimatedUnitSalePrice",
    c.commission.estimatedUnitSalePrice,
    body.commission?.estimatedUnitSalePrice,
  );
  if (body.retailer !== undefined) add("retailer", c.retailer ?? null, body.retailer);
  return out;
}

/** --dry-run: the PATCH body that would be sent, each field beside the campaign's current value. */
function printDryRun(ctx: Context, c: Campaign, body: CampaignPatch, label: string): void {
  const changes = patchChanges(c, body);
  const show = (field: string, v: unknown) =>
    field === "retailer" ? (retailerText(v as Retailer) ?? "none") : v;
  printRecord(
    ctx.io,
    {
      dryRun: true,
      campaign: { id: c.id, externalReference: c.externalReference, status: c.status },
      request: { method: "PATCH", path: `/campaigns/${c.id}`, body },
      changes,
    },
    changes.map((x) => [x.field, `${String(show(x.field, x.current))} → ${String(show(x.field, x.new))}`]),
  );
  const same = changes.filter((x) => JSON.stringify(x.current) === JSON.stringify(x.new)).length;
  ctx.io.err(
    `Dry run: every check passed; would update ${label} (PATCH /campaigns/${c.id}): ${changes.map((x) => x.field).join(", ")}${same === changes.length ? " (it already has these values)" : ""}. Nothing was changed.`,
  );
}

/** A refused PATCH: a 400's fields as the flags that set them, a 409 with its actual cause. */
async function patchError(err: unknown, api: ApiClient, campaign: Campaign): Promise<unknown> {
  if (!(err instanceof ApiError)) return err;
  // The service's field names (dates.through) → the flags that set them (--through).
  if (err.status === 400 && err.details) {
    const details: Record<string, string[]> = {};
    for (const [field, msgs] of Object.entries(err.details))
      details[flagOfField(field)] = [...(details[flagOfField(field)] ?? []), ...msgs];
    return new ApiError({ ...err, message: err.message, details, hint: "Nothing was changed." });
  }
  if (err.status === 409) {
    const now = await getCampaign(api, campaign.id).catch(() => campaign);
    const why = campaignConflictHint(now, now.externalReference ?? now.id);
    if (why) return err.withHint(`Nothing was changed. ${why}`);
  }
  return err;
}
