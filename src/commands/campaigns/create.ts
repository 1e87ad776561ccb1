// campaigns create: by flags (checked locally, every problem at once, before any write), or on a
// terminal through the interactive setup, which asks only for what no flag gave.
// Every create carries an externalReference (the user's, or a generated one that is printed), so
// an uncertain outcome (500, timeout, lost connection) is settled by looking the campaign up by
// that reference: a retry never creates a second campaign.
import { createCampaign, findCampaignByReference, setCampaignStatus } from "../../api/campaigns.js";
import type { ApiClient } from "../../api/client.js";
import { getOffer, listOffers } from "../../api/offers.js";
import { allItems } from "../../api/paging.js";
import type { Context } from "../../context.js";
import { ApiError, DeclinedError, UsageError } from "../../errors.js";
import type { Choice, Prompter } from "../../io/prompter.js";
import { printRecord } from "../../io/render.js";
import type { Campaign } from "../../spec/campaigns.js";
import { LIMITS } from "../../spec/limits.js";
import type { Offer } from "../../spec/offers.js";
import {
  type CampaignFlags,
  campaignFields,
  checkCodeLimit,
  checkDay,
  checkName,
  checkRate,
  checkReference,
  checkUnitPrice,
  createBody,
  dollars,
  FIELD_FLAG,
  FLAG,
  formatProblems,
  generateReference,
  missingFlags,
  offerProblems,
  perRedemption,
  problemLines,
} from "./form.js";
import { codeLimitMax, grouped, type Parsed, parseCodeLimit, parseRate, parseUnitPrice } from "./input.js";

const DISTRIBUTABLE_HINT =
  'Run "partner-cli offers list --distributable" to see the offers a campaign can use.';

export interface CampaignsCreateOptions extends CampaignFlags {
  activate?: boolean | undefined;
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
    ({ offer, values } = await interactiveSetup(ctx, api, flags));
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

  let reference = values.externalReference?.trim();
  if (!reference) {
    reference = generateReference(ctx.clock.now());
    ctx.io.err(
      `External reference: ${reference} (generated; "partner-cli campaigns get ${reference}" finds it).`,
    );
  }
  if (interactive) {
    printSummary(ctx, offer, values, reference);
    const ok = await ctx.prompter().confirm({ message: "Create this campaign?", default: true });
    if (!ok) throw new DeclinedError("Not created; nothing was sent.");
  }

  let campaign = await create(ctx, api, createBody(values as Required<CampaignFlags>, reference));

  let activate = Boolean(o.activate);
  if (!activate && interactive)
    activate = await ctx.prompter().confirm({ message: "Activate the campaign now?", default: true });
  if (activate) campaign = await activateCreated(ctx, api, campaign);

  printRecord(ctx.io, campaign, campaignFields(campaign));

  if (interactive) {
    const assign = await ctx.prompter().confirm({
      message: "Give every active creator on the roster a share link now?",
      default: true,
    });
    if (assign) {
      const { assignRoster } = await import("../links/assign.js");
      await assignRoster(ctx, campaign);
    } else {
      ctx.io.err(`Later: partner-cli links assign ${campaign.externalReference ?? campaign.id} --roster`);
    }
  }
}

async function fetchOffer(api: ApiClient, baseGs1: string): Promise<Offer> {
  try {
    return await getOffer(api, baseGs1.trim());
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      throw new UsageError(
        `Cannot create the campaign:\n  ${FLAG.offer}: no offer ${baseGs1.trim()} is visible to this organization`,
        DISTRIBUTABLE_HINT,
      );
    }
    throw err;
  }
}

async function create(ctx: Context, api: ApiClient, body: ReturnType<typeof createBody>): Promise<Campaign> {
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

function offerLabel(o: Offer): string {
  return `${o.title ?? "(no title)"}  [${o.baseGs1}]`;
}

function offerDetails(o: Offer): string {
  const parts = [
    `savings ${o.savings?.display ?? "none stated"}`,
    o.redemptionDates
      ? `redeemable ${o.redemptionDates.from} to ${o.redemptionDates.through}`
      : "no redemption dates",
    o.codesAvailable === null
      ? "codes available unknown"
      : `${o.codesAvailable.toLocaleString("en-US")} codes available`,
    o.retailerChoiceRequired
      ? `retailer required (${o.allowedRetailers.join(", ")})`
      : o.allowedRetailers.length
        ? `retailer optional (${o.allowedRetailers.join(", ")})`
        : "no retailer restriction",
  ];
  return parts.join(" · ");
}

function today(ctx: Context): string {
  return ctx.clock.now().toISOString().slice(0, 10);
}

/** Asks for every value no flag gave. Flags win; prompts validate as the service would. */
async function interactiveSetup(
  ctx: Context,
  api: ApiClient,
  flags: CampaignFlags,
): Promise<{ offer: Offer; values: CampaignFlags }> {
  const p: Prompter = ctx.prompter();
  const v: CampaignFlags = { ...flags };
  ctx.io.err("Campaign setup. Every answer can also be given as a flag (see --help).");

  let offer: Offer;
  if (v.offer !== undefined) {
    offer = await fetchOffer(api, v.offer);
  } else {
    const offers: Offer[] = [];
    for await (const x of allItems((page) => listOffers(api, { page, pageSize: 200 }))) offers.push(x);
    const usable = offers.filter((x) => x.canDistribute);
    if (usable.length === 0)
      throw new UsageError("No offer can be distributed right now, so no campaign can be created.");
    const brands = new Map<string, { name: string; usable: number }>();
    for (const x of offers) {
      const b = brands.get(x.brand.id) ?? { name: x.brand.name, usable: 0 };
      if (x.canDistribute) b.usable++;
      brands.set(x.brand.id, b);
    }
    const brandChoices: Choice<string>[] = [...brands.entries()]
      .sort((a, b) => a[1].name.localeCompare(b[1].name))
      .map(([id, b]) => ({
        name: b.name,
        value: id,
        description: `${b.usable} distributable offer${b.usable === 1 ? "" : "s"}`,
        disabled: b.usable === 0 ? "no distributable offers" : false,
      }));
    const brandId = await p.select({ message: "Brand", choices: brandChoices });
    const offerChoices: Choice<string>[] = usable
      .filter((x) => x.brand.id === brandId)
      .map((x) => ({ name: offerLabel(x), value: x.baseGs1, description: offerDetails(x) }));
    const baseGs1 = await p.select({ message: "Offer", choices: offerChoices });
    offer = usable.find((x) => x.baseGs1 === baseGs1)!;
    v.offer = offer.baseGs1;
  }
  if (!offer.canDistribute) return { offer, values: v }; // reported by offerProblems
  ctx.io.err(`Offer ${offerLabel(offer)}: ${offerDetails(offer)}`);

  if (v.name === undefined) {
    v.name = await p.input({
      message: "Campaign name",
      default: (offer.title ?? `Offer ${offer.baseGs1}`).slice(0, 120),
      validate: (s) => checkName(s) ?? true,
    });
  }

  const rd = offer.redemptionDates;
  const inRange = (s: string): string | undefined =>
    checkDay(s) ??
    (rd && (s.trim() < rd.from || s.trim() > rd.through)
      ? `must be between ${rd.from} and ${rd.through}`
      : undefined);
  if (v.from === undefined) {
    let def = today(ctx);
    if (rd && def < rd.from) def = rd.from;
    if (rd && def > rd.through) def = rd.through;
    v.from = await p.input({
      message: rd ? `First day (${rd.from} to ${rd.through})` : "First day (YYYY-MM-DD)",
      default: def,
      validate: (s) => inRange(s) ?? true,
    });
  }
  if (v.through === undefined) {
    const from = v.from.trim();
    v.through = await p.input({
      message: rd ? `Last day (${from} to ${rd.through})` : "Last day (YYYY-MM-DD)",
      default: rd?.through ?? from,
      validate: (s) => inRange(s) ?? (s.trim() < from ? `must be on or after ${from}` : true),
    });
  }

  const understood = (label: string, r: Parsed) => {
    if (r.ok) ctx.io.err(`  ${label}: ${r.shown}`);
  };
  if (v.codeLimit === undefined) {
    const cap = offer.codesAvailable;
    if (cap === 0)
      throw new UsageError(
        `Offer ${offer.baseGs1} has no codes available, so no campaign can be created on it.`,
        'Run "partner-cli offers list --distributable" to see the offers a campaign can use.',
      );
    // The range shown is the range checked: the API's cap, or the offer's codes when fewer.
    v.codeLimit = await p.input({
      message: `Code limit (1 to ${grouped(codeLimitMax(cap))})`,
      default: String(cap === null ? 1000 : Math.max(1, Math.min(1000, cap))),
      validate: (s) => checkCodeLimit(s, cap) ?? true,
    });
    understood("Code limit", parseCodeLimit(v.codeLimit, cap));
  }

  if (v.retailerDomain === undefined && offer.allowedRetailers.length > 0) {
    const wanted =
      offer.retailerChoiceRequired ||
      v.retailerName !== undefined ||
      (await p.confirm({ message: "Restrict the campaign to one retailer?", default: false }));
    if (wanted) {
      v.retailerDomain = await p.select({
        message: offer.retailerChoiceRequired ? "Retailer (this offer requires one)" : "Retailer",
        choices: offer.allowedRetailers.map((d) => ({ name: d, value: d })),
      });
    }
  }
  if (v.retailerDomain !== undefined && v.retailerName === undefined) {
    v.retailerName = await p.input({
      message: `Retailer name for ${v.retailerDomain}`,
      default: v.retailerDomain,
      validate: (s) => (s.trim() ? true : "must not be blank"),
    });
  }

  if (v.rate === undefined) {
    v.rate = await p.input({
      message: "Commission rate, 0% to 100% (10% or 0.1)",
      validate: (s) => checkRate(s) ?? true,
    });
    understood("Commission rate", parseRate(v.rate));
  }
  if (v.unitPrice === undefined) {
    v.unitPrice = await p.input({
      message: `Estimated unit sale price, $0 to $${grouped(LIMITS.unitSalePriceMax)} (4.99 or $4.99)`,
      validate: (s) => checkUnitPrice(s) ?? true,
    });
    understood("Unit sale price", parseUnitPrice(v.unitPrice));
  }
  const per = perRedemption(v.rate, v.unitPrice);
  if (per !== undefined) ctx.io.err(`Estimated commission per redemption: ${dollars(per)}`);

  if (v.externalReference === undefined) {
    v.externalReference = await p.input({
      message: "External reference (your own unique id for this campaign)",
      default: generateReference(ctx.clock.now()),
      validate: (s) => checkReference(s) ?? true,
    });
  }
  return { offer, values: v };
}

/** How a checked value was understood (as typed when it does not parse: offerProblems said why). */
function shown(r: Parsed, typed: string): string {
  return r.ok ? r.shown : typed.trim();
}

function printSummary(ctx: Context, offer: Offer, v: CampaignFlags, reference: string): void {
  const rows: [string, string][] = [
    ["Name", v.name!.trim()],
    ["Offer", offerLabel(offer)],
    ["Brand", offer.brand.name],
    ["Dates", `${v.from!.trim()} to ${v.through!.trim()}`],
    ["Code limit", shown(parseCodeLimit(v.codeLimit!), v.codeLimit!)],
    ["Retailer", v.retailerDomain ? `${v.retailerDomain.trim()} (${v.retailerName?.trim()})` : "any"],
    ["Commission rate", shown(parseRate(v.rate!), v.rate!)],
    ["Unit sale price", shown(parseUnitPrice(v.unitPrice!), v.unitPrice!)],
    ["Per redemption", dollars(perRedemption(v.rate, v.unitPrice) ?? "?")],
    ["External reference", reference],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  ctx.io.err(
    [
      "",
      "Summary (the campaign starts as a draft):",
      ...rows.map(([k, x]) => `  ${k.padEnd(w)}  ${x}`),
      "",
    ].join("\n"),
  );
}
