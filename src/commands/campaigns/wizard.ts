// The campaign wizard of `campaigns create` on a terminal: one step per question, each taking only
// the part of the wizard's state it needs (as create-astro's steps do) and asking only for what no
// flag gave. Flags win; every prompt's check is the check the flags get, and the range a prompt
// shows is the range its check enforces. Numbers are taken as people type them (10% or 0.1, $4.99
// or 4.99, 1,000 or 1000) and echoed as understood.
import { UsageError } from "../../errors.js";
import type { Choice, Prompter } from "../../io/prompter.js";
import { LIMITS } from "../../spec/limits.js";
import type { Offer } from "../../spec/offers.js";
import {
  type CampaignFlags,
  checkCodeLimit,
  checkDay,
  checkName,
  checkRate,
  checkReference,
  checkUnitPrice,
  dollars,
  generateReference,
  perRedemption,
} from "./form.js";
import { codeLimitMax, grouped, type Parsed, parseCodeLimit, parseRate, parseUnitPrice } from "./input.js";

export const DISTRIBUTABLE_HINT =
  'Run "partner-cli offers list --distributable" to see the offers a campaign can use.';

/** Everything the steps may use; each step declares the part it reads. */
export interface WizardState {
  prompt: Prompter;
  /** One line on stderr. */
  say(line: string): void;
  /** The answers so far: the flags given, then each step's. */
  values: CampaignFlags;
  /** Now, for the default first day and a generated reference. */
  now: Date;
  /** Every offer visible to the organization (for the brand and offer choices). */
  offers(): Promise<Offer[]>;
  /** The offer named by --offer (a usage error when there is none). */
  offer(baseGs1: string): Promise<Offer>;
}

/** The state once the offer is chosen. */
export type WithOffer = WizardState & { chosen: Offer };

/** The steps after the offer, in order. */
const STEPS = [askName, askDates, askCodeLimit, askRetailer, askCommission, askReference] as const;

/** Asks for every value no flag gave; the offer's rules are checked by the caller afterwards. */
export async function runWizard(w: WizardState): Promise<{ offer: Offer; values: CampaignFlags }> {
  w.say("Campaign setup. Every answer can also be given as a flag (see --help).");
  const chosen = await chooseOffer(w);
  if (!chosen.canDistribute) return { offer: chosen, values: w.values }; // reported by offerProblems
  w.say(`Offer ${offerLabel(chosen)}: ${offerDetails(chosen)}`);
  const s: WithOffer = Object.assign(w, { chosen });
  for (const step of STEPS) await step(s);
  return { offer: chosen, values: s.values };
}

/** The offer: --offer's, or a brand then one of its distributable offers. */
async function chooseOffer(w: Pick<WizardState, "prompt" | "values" | "offers" | "offer">): Promise<Offer> {
  if (w.values.offer !== undefined) return w.offer(w.values.offer);
  const offers = await w.offers();
  const usable = offers.filter((x) => x.canDistribute);
  if (usable.length === 0)
    throw new UsageError("No offer can be distributed right now, so no campaign can be created.");
  const brandId = await w.prompt.select({ message: "Brand", choices: brandChoices(offers) });
  const offerChoices: Choice<string>[] = usable
    .filter((x) => x.brand.id === brandId)
    .map((x) => ({ name: offerLabel(x), value: x.baseGs1, description: offerDetails(x) }));
  const baseGs1 = await w.prompt.select({ message: "Offer", choices: offerChoices });
  const offer = usable.find((x) => x.baseGs1 === baseGs1)!;
  w.values.offer = offer.baseGs1;
  return offer;
}

function brandChoices(offers: Offer[]): Choice<string>[] {
  const brands = new Map<string, { name: string; usable: number }>();
  for (const x of offers) {
    const b = brands.get(x.brand.id) ?? { name: x.brand.name, usable: 0 };
    if (x.canDistribute) b.usable++;
    brands.set(x.brand.id, b);
  }
  return [...brands.entries()]
    .sort((a, b) => a[1].name.localeCompare(b[1].name))
    .map(([id, b]) => ({
      name: b.name,
      value: id,
      description: `${b.usable} distributable offer${b.usable === 1 ? "" : "s"}`,
      disabled: b.usable === 0 ? "no distributable offers" : false,
    }));
}

export async function askName(w: Pick<WithOffer, "prompt" | "values" | "chosen">): Promise<void> {
  if (w.values.name !== undefined) return;
  w.values.name = await w.prompt.input({
    message: `Campaign name (at most ${LIMITS.campaignNameMax} characters)`,
    default: (w.chosen.title ?? `Offer ${w.chosen.baseGs1}`).slice(0, LIMITS.campaignNameMax),
    validate: (s) => checkName(s) ?? true,
  });
}

/** First and last day, inside the offer's redemption dates (the range each prompt shows). */
export async function askDates(
  w: Pick<WithOffer, "prompt" | "say" | "values" | "chosen" | "now">,
): Promise<void> {
  const rd = w.chosen.redemptionDates;
  const inRange = (s: string): string | undefined =>
    checkDay(s) ??
    (rd && (s.trim() < rd.from || s.trim() > rd.through)
      ? `must be between ${rd.from} and ${rd.through}`
      : undefined);
  const today = w.now.toISOString().slice(0, 10);
  if (w.values.from === undefined) {
    let def = today;
    if (rd && def < rd.from) def = rd.from;
    if (rd && def > rd.through) def = rd.through;
    w.values.from = await askFirstDay(w, today, {
      message: rd ? `First day (${rd.from} to ${rd.through})` : "First day (YYYY-MM-DD)",
      default: def,
      validate: (s) => inRange(s) ?? true,
    });
  } else {
    const past = pastDay(w.values.from.trim(), today);
    if (past) w.say(`Warning: ${past}`); // a flag wins over a question
  }
  if (w.values.through === undefined) {
    const from = w.values.from.trim();
    w.values.through = await w.prompt.input({
      message: rd ? `Last day (${from} to ${rd.through})` : "Last day (YYYY-MM-DD)",
      default: rd?.through ?? from,
      validate: (s) => inRange(s) ?? (s.trim() < from ? `must be on or after ${from}` : true),
    });
  }
}

/** "2026-11-01 is in the past (today is 2026-11-28, UTC): ..." for a first day before today. */
function pastDay(day: string, today: string): string | undefined {
  if (checkDay(day) !== undefined || day >= today) return undefined;
  const days = Math.round((Date.parse(today) - Date.parse(day)) / 86_400_000);
  return `${day} is in the past (today is ${today}, UTC): the campaign would start ${days} day${days === 1 ? "" : "s"} ago.`;
}

/** The first day; a day in the past is said and confirmed (declined: asked again). */
async function askFirstDay(
  w: Pick<WizardState, "prompt" | "say">,
  today: string,
  question: Parameters<Prompter["input"]>[0],
): Promise<string> {
  for (;;) {
    const typed = await w.prompt.input(question);
    const past = pastDay(typed.trim(), today);
    if (!past) return typed;
    w.say(`Warning: ${past}`);
    if (await w.prompt.confirm({ message: `Start on ${typed.trim()} anyway?`, default: false })) return typed;
  }
}

/** Echoes how a typed number was understood ("Code limit: 1,000"). */
function understood(w: Pick<WizardState, "say">, label: string, r: Parsed): void {
  if (r.ok) w.say(`  ${label}: ${r.shown}`);
}

/** The code limit: 1 to the API's cap, or to the offer's codes when fewer (shown and checked alike). */
export async function askCodeLimit(
  w: Pick<WithOffer, "prompt" | "say" | "values" | "chosen">,
): Promise<void> {
  if (w.values.codeLimit !== undefined) return;
  const cap = w.chosen.codesAvailable;
  if (cap === 0)
    throw new UsageError(
      `Offer ${w.chosen.baseGs1} has no codes available, so no campaign can be created on it.`,
      DISTRIBUTABLE_HINT,
    );
  w.values.codeLimit = await w.prompt.input({
    message: `Code limit (1 to ${grouped(codeLimitMax(cap))})`,
    default: String(cap === null ? 1000 : Math.max(1, Math.min(1000, cap))),
    validate: (s) => checkCodeLimit(s, cap) ?? true,
  });
  understood(w, "Code limit", parseCodeLimit(w.values.codeLimit, cap));
}

/** A retailer among the offer's: asked when the offer requires one, or when wanted. */
export async function askRetailer(w: Pick<WithOffer, "prompt" | "values" | "chosen">): Promise<void> {
  const { values: v, chosen: offer } = w;
  if (v.retailerDomain === undefined && offer.allowedRetailers.length > 0) {
    const wanted =
      offer.retailerChoiceRequired ||
      v.retailerName !== undefined ||
      (await w.prompt.confirm({ message: "Restrict the campaign to one retailer?", default: false }));
    if (wanted) {
      v.retailerDomain = await w.prompt.select({
        message: offer.retailerChoiceRequired ? "Retailer (this offer requires one)" : "Retailer",
        choices: offer.allowedRetailers.map((d) => ({ name: d, value: d })),
      });
    }
  }
  if (v.retailerDomain !== undefined && v.retailerName === undefined) {
    v.retailerName = await w.prompt.input({
      message: `Retailer name for ${v.retailerDomain}`,
      default: v.retailerDomain,
      validate: (s) => (s.trim() ? true : "must not be blank"),
    });
  }
}

/** Commission rate and unit sale price, each echoed as understood, then what one redemption earns. */
export async function askCommission(w: Pick<WizardState, "prompt" | "say" | "values">): Promise<void> {
  const v = w.values;
  if (v.rate === undefined) {
    v.rate = await w.prompt.input({
      message: "Commission rate, 0% to 100% (10% or 0.1)",
      validate: (s) => checkRate(s) ?? true,
    });
    understood(w, "Commission rate", parseRate(v.rate));
  }
  if (v.unitPrice === undefined) {
    v.unitPrice = await w.prompt.input({
      message: `Estimated unit sale price, $0 to $${grouped(LIMITS.unitSalePriceMax)} (4.99 or $4.99)`,
      validate: (s) => checkUnitPrice(s) ?? true,
    });
    understood(w, "Unit sale price", parseUnitPrice(v.unitPrice));
  }
  const per = perRedemption(v.rate, v.unitPrice);
  if (per !== undefined) w.say(`Estimated commission per redemption: ${dollars(per)}`);
}

async function askReference(w: Pick<WizardState, "prompt" | "values" | "now">): Promise<void> {
  if (w.values.externalReference !== undefined) return;
  w.values.externalReference = await w.prompt.input({
    message: "External reference (your own unique id for this campaign)",
    default: generateReference(w.now),
    validate: (s) => checkReference(s) ?? true,
  });
}

export function offerLabel(o: Offer): string {
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

/** How a checked value was understood (as typed when it does not parse: offerProblems said why). */
function shown(r: Parsed, typed: string): string {
  return r.ok ? r.shown : typed.trim();
}

/** The summary shown before the confirmation (stderr). */
export function summaryLines(offer: Offer, v: CampaignFlags, reference: string): string {
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
  return [
    "",
    "Summary (the campaign starts as a draft):",
    ...rows.map(([k, x]) => `  ${k.padEnd(w)}  ${x}`),
    "",
  ].join("\n");
}
