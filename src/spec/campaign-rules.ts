// The campaign/offer rules of the spec, written once (spec: Offer table, Campaigns create body and
// PATCH rules 2-4): dates inside the offer's redemption dates, the code limit against the offer's
// supply and the codes handed out, the retailer required and allowed. Pure functions returning
// problems keyed by the field as the API names it (`dates.through`): the sandbox answers them as the
// 400's `details`, the CLI maps them to its flags. The 409 cases (a fixed retailer, a raise the
// campaign's or offer's state refuses) are `patchConflict`.
import { LIMITS } from "./limits.js";
import type { Offer } from "./offers.js";

/** The API fields these rules speak about (keys of a 400's details). */
export type RuleField =
  | "baseGs1"
  | "dates.from"
  | "dates.through"
  | "codeLimit"
  | "retailer"
  | "retailer.emailDomain";

export interface RuleProblem {
  field: RuleField;
  message: string;
}

/** What the rules read of an offer. */
export type OfferTerms = Pick<
  Offer,
  | "baseGs1"
  | "state"
  | "canDistribute"
  | "redemptionDates"
  | "codesAvailable"
  | "retailerChoiceRequired"
  | "allowedRetailers"
>;

/** What the rules read of a campaign as it is (the API's Campaign and the sandbox's record both fit). */
export interface CampaignNow {
  status: string;
  dates: { from: string; through: string };
  retailer: { emailDomain: string } | null;
  canChangeRetailer: boolean;
  codes: { limit: number; issued: number; testCodes: number };
}

/**
 * Values of a create or a change, already valid on their own (real days, an integer limit, a
 * trimmed lower-case domain). Absent: not given. `retailer: null` clears (PATCH rule 3).
 */
export interface CampaignValues {
  dates?: { from?: string | undefined; through?: string | undefined } | undefined;
  codeLimit?: number | undefined;
  retailer?: { emailDomain: string } | null | undefined;
}

/** 1234567 → "1,234,567". */
export function grouped(n: number | string): string {
  return Number(n).toLocaleString("en-US", { maximumFractionDigits: 20 });
}

/** Problems as a 400's details: field → messages. */
export function asDetails(problems: readonly RuleProblem[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const p of problems) out[p.field] = [...(out[p.field] ?? []), p.message];
  return out;
}

/** The largest code limit a new campaign may have: the API's cap, or the offer's codes when fewer. */
export function codeLimitMax(codesAvailable?: number | null): number {
  return codesAvailable === undefined || codesAvailable === null
    ? LIMITS.codeLimitMax
    : Math.min(codesAvailable, LIMITS.codeLimitMax);
}

/** A new campaign's code limit against the offer's supply (the 1 to 10,000,000 range aside). */
function codeLimitSupplyProblem(limit: number, codesAvailable?: number | null): string | undefined {
  const max = codeLimitMax(codesAvailable);
  return limit > max && max < LIMITS.codeLimitMax
    ? `must be at most ${grouped(max)}, the codes the offer has available`
    : undefined;
}

/** A campaign day against the offer's redemption dates. */
function dayProblem(day: string, offer: Pick<OfferTerms, "redemptionDates">): string | undefined {
  const rd = offer.redemptionDates;
  return rd && (day < rd.from || day > rd.through)
    ? `must be inside the offer's redemption dates ${rd.from} to ${rd.through}`
    : undefined;
}

/** The offer's spelling of a retailer domain it allows (compared case-insensitively), or undefined. */
export function allowedRetailer(
  offer: Pick<OfferTerms, "allowedRetailers">,
  domain: string,
): string | undefined {
  const d = domain.trim().toLowerCase();
  return offer.allowedRetailers.find((r) => r.toLowerCase() === d);
}

function retailerRequired(offer: OfferTerms): string {
  return `this offer requires a retailer: one of ${offer.allowedRetailers.join(", ") || "(none listed)"}`;
}

function retailerNotAllowed(offer: OfferTerms): string {
  return offer.allowedRetailers.length
    ? `must be one of the offer's retailers: ${offer.allowedRetailers.join(", ")}`
    : "this offer allows no retailer restriction";
}

/**
 * POST /campaigns: the offer's rules for a new campaign. An offer that cannot be distributed is the
 * only problem reported (nothing else about a campaign on it matters).
 */
export function createProblems(c: CampaignValues, offer: OfferTerms): RuleProblem[] {
  if (!offer.canDistribute)
    return [
      { field: "baseGs1", message: `offer ${offer.baseGs1} cannot be distributed (state ${offer.state})` },
    ];
  const out: RuleProblem[] = [];
  const add = (field: RuleField, message: string | undefined) => {
    if (message) out.push({ field, message });
  };
  if (c.dates?.from !== undefined) add("dates.from", dayProblem(c.dates.from, offer));
  if (c.dates?.through !== undefined) add("dates.through", dayProblem(c.dates.through, offer));
  if (c.codeLimit !== undefined) add("codeLimit", codeLimitSupplyProblem(c.codeLimit, offer.codesAvailable));
  if (c.retailer) {
    if (!allowedRetailer(offer, c.retailer.emailDomain))
      add("retailer.emailDomain", retailerNotAllowed(offer));
  } else if (offer.retailerChoiceRequired) add("retailer", retailerRequired(offer));
  return out;
}

function sameDomain(now: CampaignNow, domain: string): boolean {
  return now.retailer !== null && now.retailer.emailDomain.toLowerCase() === domain.trim().toLowerCase();
}

/** Why a raise of the code limit is refused by state (409), or undefined. */
function raiseConflict(now: CampaignNow, offer: OfferTerms | null): string | undefined {
  if (now.status === "ended") return "The campaign has ended; its code limit cannot be raised.";
  if (offer?.state !== "available")
    return `The offer is not available (state ${offer?.state ?? "gone"}); the code limit cannot be raised.`;
  if (offer.codesAvailable === 0) return "The offer has no codes left; the code limit cannot be raised.";
  return undefined;
}

/**
 * PATCH /campaigns/{id}, the 400 rules (2-4) on the values sent, merged with the campaign's.
 * `offer`: the campaign's offer, null when it no longer exists, undefined when not known (its rules
 * are then skipped).
 */
export function patchProblems(
  change: CampaignValues,
  now: CampaignNow,
  offer: OfferTerms | null | undefined,
): RuleProblem[] {
  const out: RuleProblem[] = [];
  const add = (field: RuleField, message: string | undefined) => {
    if (message) out.push({ field, message });
  };
  // Dates (rule 4) merge with the current ones; both sent are ordered by the body's own rules.
  const { from, through } = change.dates ?? {};
  if (from !== undefined && through === undefined && from > now.dates.through)
    add("dates.from", `must be on or before the campaign's last day ${now.dates.through}`);
  if (through !== undefined && from === undefined && through < now.dates.from)
    add("dates.through", `must be on or after the campaign's first day ${now.dates.from}`);
  if (offer) {
    if (from !== undefined && from !== now.dates.from) add("dates.from", dayProblem(from, offer));
    if (through !== undefined && through !== now.dates.through)
      add("dates.through", dayProblem(through, offer));
  }
  // Retailer (rule 3); a fixed one is a conflict, not a problem of the value.
  if (change.retailer === null) {
    if (now.retailer && now.canChangeRetailer && offer?.retailerChoiceRequired)
      add("retailer", retailerRequired(offer));
  } else if (change.retailer && !sameDomain(now, change.retailer.emailDomain) && now.canChangeRetailer) {
    if (offer === null) add("retailer.emailDomain", "the campaign's offer no longer exists");
    else if (offer && !allowedRetailer(offer, change.retailer.emailDomain))
      add("retailer.emailDomain", retailerNotAllowed(offer));
  }
  // codeLimit (rule 2): an absolute total, not below the codes handed out, raised within the supply.
  const limit = change.codeLimit;
  const handedOut = now.codes.issued + now.codes.testCodes;
  if (limit !== undefined && limit < now.codes.limit && limit < handedOut)
    add(
      "codeLimit",
      `must be at least ${grouped(handedOut)}, the codes already handed out (issued and test codes)`,
    );
  if (limit !== undefined && limit > now.codes.limit && offer !== undefined && !raiseConflict(now, offer)) {
    const available = offer?.codesAvailable ?? null;
    if (available !== null && limit - handedOut > available)
      add(
        "codeLimit",
        `must be at most ${grouped(handedOut + available)}: the offer has ${grouped(available)} codes available`,
      );
  }
  return out;
}

/** PATCH /campaigns/{id}: the change the campaign's or offer's state refuses (409), or undefined. */
export function patchConflict(
  change: CampaignValues,
  now: CampaignNow,
  offer: OfferTerms | null,
): string | undefined {
  if (change.retailer === null && now.retailer && !now.canChangeRetailer)
    return "The retailer restriction is fixed once the first code is prepared.";
  if (change.retailer && !sameDomain(now, change.retailer.emailDomain) && !now.canChangeRetailer)
    return "The retailer's emailDomain is fixed once the first code is prepared; only its name may change (send the same emailDomain).";
  if (change.codeLimit !== undefined && change.codeLimit > now.codes.limit) return raiseConflict(now, offer);
  return undefined;
}
