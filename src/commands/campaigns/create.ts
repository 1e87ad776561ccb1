// campaigns create: by flags (checked locally, every problem at once, before any write), or on a
// terminal through the interactive setup, which asks only for what no flag gave.
// Every create carries an externalReference (the user's, or a generated one that is printed), so
// an uncertain outcome (500, timeout, lost connection) is settled by looking the campaign up by
// that reference: a retry never creates a second campaign.
// --dry-run makes every check (the offer's with read-only requests; the setup still asks on a terminal)
// and prints the body instead of sending it.
import { createCampaign, findCampaignByReference, setCampaignStatus } from "../../api/campaigns.js";
import type { ApiClient } from "../../api/client.js";
import { getOffer, listOffers } from "../../api/offers.js";
import { allItems } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { ApiError, CancelledError, DeclinedError, UsageError } from "../../errors.js";
import { printRecord } from "../../io/render.js";
import type { Campaign } from "../../spec/campaigns.js";
import type { Offer } from "../../spec/offers.js";
import {
  type CampaignFlags,
  campaignFields,
  createBody,
  FIELD_FLAG,
  FLAG,
  formatProblems,
  generateReference,
  missingFlags,
  offerProblems,
  problemLines,
} from "./form.js";
import { lostZerosNote, withLostZeros } from "../offers/lost-zeros.js";
import { DISTRIBUTABLE_HINT, offerLabel, runWizard, summaryLines } from "./wizard.js";

export interface CampaignsCreateOptions extends CampaignFlags {
  activate?: boolean | undefined;
  /** Every check (the offer's live ones read-only), then the body that would be sent; creates nothing. */
  dryRun?: boolean | undefined;
}

export async function campaignsCreateRun(o: CampaignsCreateOptions, ctx: Context): Promise<void> {
  const flags: CampaignFlags = {
    name: o.name,
    offer: o.offer,
    from: o.from,
    through: o.through,
    codeLimit: o.codeLimit,
    rate: o.rate,
    unitPrice: o.unitPrice,
    retailerDomain: o.retailerDomain,
    retailerName: o.retailerName,
    externalReference: o.externalReference,
  };
  const problems = formatProblems(flags);
  const missing = missingFlags(flags);
  const interactive = missing.length > 0 && ctx.canPrompt();
  if (!interactive && missing.length) {
    const parts = [`Missing required flag${missing.length > 1 ? "s" : ""}: ${missing.join(", ")}.`];
    if (problems.length) parts.push(`Invalid values:\n${problemLines(problems)}`);
    throw new UsageError(
      `Cannot create the campaign. ${parts.join("\n")}`,
      ctx.globals.input
        ? "Give them as flags, or run the command on a terminal for the interactive setup."
        : "Give them as flags (--no-input never prompts).",
    );
  }
  // On a terminal, a bad flag is reported before any prompt; by flags, together with the offer's rules.
  if (problems.length && (interactive || problems.some((p) => p.flag === FLAG.offer)))
    throw new UsageError(`Cannot create the campaign. Invalid values:\n${problemLines(problems)}`);

  const api = await ctx.api();
  let offer: Offer;
  let values: CampaignFlags;
  if (interactive) {
    ({ offer, values } = await runWizard({
      prompt: ctx.prompter(),
      say: (line) => ctx.io.err(line),
      values: { ...flags },
      now: ctx.clock.now(),
      offers: () => allOffers(api),
      offer: (baseGs1) => fetchOffer(api, baseGs1),
    }));
  } else {
    offer = await fetchOffer(api, flags.offer!);
    values = flags;
  }
  const all = [...problems, ...offerProblems(values, offer)];
  if (all.length)
    throw new UsageError(
      `Cannot create the campaign on offer ${offer.baseGs1}:\n${problemLines(all)}`,
      offer.canDistribute ? undefined : DISTRIBUTABLE_HINT,
    );

  const reference = referenceOf(ctx, values, Boolean(o.dryRun));
  if (o.dryRun) {
    printDryRun(ctx, offer, values, reference, { activate: Boolean(o.activate), interactive });
    return;
  }
  await createAndFollow(ctx, api, offer, values, reference, { activate: Boolean(o.activate), interactive });
}

/** The user's reference, or a generated one (printed, so that the campaign can be found by it). */
function referenceOf(ctx: Context, values: CampaignFlags, dryRun: boolean): string {
  const given = values.externalReference?.trim();
  if (given) return given;
  const reference = generateReference(ctx.clock.now());
  ctx.io.err(
    dryRun
      ? `External reference: ${reference} (generated for this dry run; a real run generates its own unless --external-reference is given).`
      : `External reference: ${reference} (generated; "partner-cli campaigns get ${reference}" finds it).`,
  );
  return reference;
}

interface Follow {
  activate: boolean;
  interactive: boolean;
}

/** The create itself, then (asked on a terminal) the activation and the roster's links. */
async function createAndFollow(
  ctx: Context,
  api: ApiClient,
  offer: Offer,
  values: CampaignFlags,
  reference: string,
  f: Follow,
): Promise<void> {
  const { interactive } = f;
  if (interactive) {
    ctx.io.err(summaryLines(offer, values, reference));
    const ok = await ctx.prompter().confirm({ message: "Create this campaign?", default: true });
    if (!ok) throw new DeclinedError("Not created; nothing was sent.");
  }

  let campaign = await create(ctx, api, offer, createBody(values as Required<CampaignFlags>, reference));

  let activate = f.activate;
  const ref = campaign.externalReference ?? campaign.id;
  if (!activate && interactive)
    activate = await afterCreate(
      ctx.prompter().confirm({ message: "Activate the campaign now?", default: true }),
      campaign,
      ["not activated.", `Activate it: partner-cli campaigns activate ${ref}`],
    );
  if (activate) campaign = await activateCreated(ctx, api, campaign);

  printRecord(ctx.io, campaign, campaignFields(campaign));

  if (interactive) {
    const assign = await afterCreate(
      ctx.prompter().confirm({
        message: "Give every active creator on the roster a share link now?",
        default: true,
      }),
      campaign,
      ["no links were assigned.", `Give the roster its links: partner-cli links assign ${ref} --roster`],
    );
    if (assign) {
      const { assignRoster } = await import("../links/assign.js");
      await assignRoster(ctx, campaign);
    } else {
      ctx.io.err(`Later: partner-cli links assign ${campaign.externalReference ?? campaign.id} --roster`);
    }
  }
}

/**
 * A question asked once the campaign exists: Ctrl-C there (exit 130) says that it was created, as
 * what, its id and reference, what was not done and the command that does it.
 */
async function afterCreate<T>(
  question: Promise<T>,
  c: Campaign,
  [notDone, step]: [string, string],
): Promise<T> {
  try {
    return await question;
  } catch (err) {
    if (!(err instanceof CancelledError)) throw err;
    const ref = c.externalReference === null ? "" : `, reference ${c.externalReference}`;
    throw new CancelledError(
      `Cancelled. The campaign was created as ${c.status === "draft" ? "a draft" : `an ${c.status} campaign`} (id ${c.id}${ref}); ${notDone}`,
      step,
    );
  }
}

/**
 * --dry-run: every local check and the offer's live checks passed; prints the POST body that would
 * be sent (JSON with --json, a record otherwise) and whether the campaign would be activated.
 */
function printDryRun(ctx: Context, offer: Offer, values: CampaignFlags, reference: string, f: Follow): void {
  const body = createBody(values as Required<CampaignFlags>, reference);
  const activate = f.activate ? true : f.interactive ? "asked" : false;
  printRecord(ctx.io, { dryRun: true, request: { method: "POST", path: "/campaigns", body }, activate }, [
    ["name", body.name],
    ["offer", offerLabel(offer)],
    ["dates", `${body.dates.from} to ${body.dates.through}`],
    ["codeLimit", body.codeLimit],
    ["commissionRate", body.commission.rate],
    ["estimatedUnitSalePrice", body.commission.estimatedUnitSalePrice],
    ["retailer", body.retailer ? `${body.retailer.emailDomain} (${body.retailer.name})` : null],
    ["externalReference", body.externalReference],
  ]);
  const then = f.activate
    ? " and then activate it (--activate)"
    : f.interactive
      ? " (a real run then asks whether to activate it and to give the roster links)"
      : " as a draft";
  ctx.io.err(
    `Dry run: every check passed, on offer ${offer.baseGs1}; would create this campaign (POST /campaigns)${then}. Nothing was created.`,
  );
}

async function fetchOffer(api: ApiClient, baseGs1: string): Promise<Offer> {
  try {
    return await getOffer(api, baseGs1.trim());
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new UsageError(
        `Cannot create the campaign:\n  ${FLAG.offer}: no offer ${baseGs1.trim()} is visible to this organization.${lostZerosNote(await withLostZeros(api, baseGs1))}`,
        DISTRIBUTABLE_HINT,
      );
    }
    throw err;
  }
}

async function allOffers(api: ApiClient): Promise<Offer[]> {
  const offers: Offer[] = [];
  for await (const x of allItems((page) => listOffers(api, { page, pageSize: 200 }))) offers.push(x);
  return offers;
}

async function create(
  ctx: Context,
  api: ApiClient,
  offer: Offer,
  body: ReturnType<typeof createBody>,
): Promise<Campaign> {
  let result: Awaited<ReturnType<typeof createCampaign>>;
  try {
    result = await createCampaign(api, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && err.details) {
      const flags = [
        ...new Set(Object.keys(err.details).map((f) => FIELD_FLAG[f] ?? FIELD_FLAG[f.split(".")[0]!])),
      ]
        .filter(Boolean)
        .join(", ");
      if (flags) throw err.withHint(`Nothing was created. Check ${flags}.`);
    }
    if (err instanceof ApiError && err.status === 409) {
      // A reference already in use (rule 2): name the campaign that holds it and how to see it.
      const existing = await findCampaignByReference(api, body.externalReference).catch(() => null);
      if (existing) {
        throw new ApiError({
          status: 409,
          code: err.code,
          message: `The external reference "${body.externalReference}" is already used by campaign ${existing.id} ("${existing.name}", ${existing.status}). Nothing was created.`,
          method: err.method,
          path: err.path,
          hint: `Inspect it: partner-cli campaigns get ${body.externalReference}  (or choose another --external-reference)`,
        });
      }
      // The spec's other 409 of a create: the organization lost access to the offer's brand.
      throw err.withHint(
        `Nothing was created. The organization lost access to the brand ${offer.brand.name}, so its campaigns are view-only and no new one can be made on its offers. Offers a campaign can use: partner-cli offers list --distributable`,
      );
    }
    throw err;
  }
  const c = result.campaign;
  if (result.recovered)
    ctx.io.err(
      `The service's answer was lost; the campaign was found by its reference ${body.externalReference}, so it was created once.`,
    );
  ctx.io.err(`Created campaign ${c.id} "${c.name}" (${c.status}).`);
  return c;
}

async function activateCreated(ctx: Context, api: ApiClient, c: Campaign): Promise<Campaign> {
  const ref = c.externalReference ?? c.id;
  try {
    const updated = await setCampaignStatus(api, c.id, "active");
    ctx.io.err(`Activated campaign ${ref}.`);
    return updated;
  } catch (err) {
    if (err instanceof ApiError)
      throw err.withHint(
        `The campaign was created (${c.id}) but not activated. Try again: partner-cli campaigns activate ${ref}`,
      );
    throw err;
  }
}
