// The campaign form: flag names, local checks (format and offer rules) reported all at once with
// the flag names, the request body, the generated reference and the campaign record for output.
import { randomBytes } from "node:crypto";
import type { CampaignCreate, CampaignPatch } from "../../api/campaigns.js";
import type { Campaign } from "../../spec/campaigns.js";
import {
  CampaignNameRule,
  estimatedPerRedemption,
  ExternalReferenceRule,
  isCalendarDay,
} from "../../spec/campaigns.js";
import {
  type CampaignValues,
  createProblems,
  type RuleProblem,
  type RuleField,
} from "../../spec/campaign-rules.js";
import type { Offer } from "../../spec/offers.js";
import { type Parsed, parseCodeLimit, parseRate, parseUnitPrice } from "./input.js";
import { isViewOnly, statusText, viewOnlyWhy } from "./view-only.js";

/** The create flags as commander hands them over (all text). */
export interface CampaignFlags {
  name?: string | undefined;
  offer?: string | undefined;
  from?: string | undefined;
  through?: string | undefined;
  codeLimit?: string | undefined;
  rate?: string | undefined;
  unitPrice?: string | undefined;
  retailerDomain?: string | undefined;
  retailerName?: string | undefined;
  externalReference?: string | undefined;
}

export const FLAG: Record<keyof CampaignFlags, string> = {
  name: "--name",
  offer: "--offer",
  from: "--from",
  through: "--through",
  codeLimit: "--code-limit",
  rate: "--rate",
  unitPrice: "--unit-price",
  retailerDomain: "--retailer-domain",
  retailerName: "--retailer-name",
  externalReference: "--external-reference",
};

/** Body fields (as the service names them in error details) → the flags that set them. */
export const FIELD_FLAG: Record<string, string> = {
  name: FLAG.name,
  baseGs1: FLAG.offer,
  dates: `${FLAG.from}/${FLAG.through}`,
  "dates.from": FLAG.from,
  "dates.through": FLAG.through,
  codeLimit: FLAG.codeLimit,
  commission: `${FLAG.rate}/${FLAG.unitPrice}`,
  "commission.rate": FLAG.rate,
  "commission.estimatedUnitSalePrice": FLAG.unitPrice,
  retailer: `${FLAG.retailerDomain}/${FLAG.retailerName}`,
  "retailer.emailDomain": FLAG.retailerDomain,
  "retailer.name": FLAG.retailerName,
  externalReference: FLAG.externalReference,
};

/** The flag for a field named in an API error's details (the field itself when none sets it). */
export function flagOfField(field: string): string {
  return FIELD_FLAG[field] ?? FIELD_FLAG[field.split(".")[0]!] ?? field;
}

const REQUIRED: (keyof CampaignFlags)[] = [
  "name",
  "offer",
  "from",
  "through",
  "codeLimit",
  "rate",
  "unitPrice",
];

export interface Problem {
  flag: string;
  message: string;
}

const given = (v: string | undefined): v is string => v !== undefined;

/** Required flags that were not given; a retailer needs both its domain and its name. */
export function missingFlags(f: CampaignFlags): string[] {
  const out = REQUIRED.filter((k) => !given(f[k])).map((k) => FLAG[k]);
  if (given(f.retailerDomain) && !given(f.retailerName)) out.push(FLAG.retailerName);
  if (given(f.retailerName) && !given(f.retailerDomain)) out.push(FLAG.retailerDomain);
  return out;
}

// Single-value checks, shared by the flag checks and the interactive prompts' validators.
// Each returns undefined when the value is fine, else the reason.

export function checkName(v: string): string | undefined {
  const r = CampaignNameRule.safeParse(v);
  return r.success ? undefined : r.error.issues[0]?.message;
}

export function checkReference(v: string): string | undefined {
  const r = ExternalReferenceRule.safeParse(v);
  return r.success ? undefined : r.error.issues[0]?.message;
}

export function checkDay(v: string): string | undefined {
  return isCalendarDay(v.trim()) ? undefined : "must be a calendar day YYYY-MM-DD";
}

export function checkCodeLimit(v: string, codesAvailable?: number | null): string | undefined {
  const r = parseCodeLimit(v, codesAvailable);
  return r.ok ? undefined : r.reason;
}

export function checkRate(v: string): string | undefined {
  const r = parseRate(v);
  return r.ok ? undefined : r.reason;
}

export function checkUnitPrice(v: string): string | undefined {
  const r = parseUnitPrice(v);
  return r.ok ? undefined : r.reason;
}

/** The value sent for a checked flag (a flag that does not parse is sent as typed: the service says why). */
function sent(r: Parsed, v: string): number {
  return Number(r.ok ? r.value : v.trim());
}

function nonBlankLine(v: string): string | undefined {
  if (!v.trim()) return "must not be blank";
  if (/[\r\n]/.test(v)) return "must be one line";
  return undefined;
}

/** Format checks of the flags that were given (no request needed). */
export function formatProblems(f: Partial<CampaignFlags>): Problem[] {
  const out: Problem[] = [];
  const check = (k: keyof CampaignFlags, fn: (v: string) => string | undefined) => {
    const v = f[k];
    if (!given(v)) return;
    const reason = fn(v);
    if (reason) out.push({ flag: FLAG[k], message: reason });
  };
  check("name", checkName);
  check("offer", (v) => (v.trim() ? undefined : "must not be blank"));
  check("from", checkDay);
  check("through", checkDay);
  check("codeLimit", (v) => checkCodeLimit(v));
  check("rate", checkRate);
  check("unitPrice", checkUnitPrice);
  check("retailerDomain", nonBlankLine);
  check("retailerName", nonBlankLine);
  check("externalReference", checkReference);
  if (
    given(f.from) &&
    given(f.through) &&
    !checkDay(f.from) &&
    !checkDay(f.through) &&
    f.through.trim() < f.from.trim()
  )
    out.push({ flag: FLAG.through, message: `must be on or after --from (${f.from.trim()})` });
  return out;
}

/** The flag that sets a rule's field (the retailer as a whole: --retailer-domain, or --no-retailer when clearing). */
function ruleFlag(field: RuleField, clearRetailer = false): string {
  if (field === "retailer") return clearRetailer ? "--no-retailer" : FLAG.retailerDomain;
  return flagOfField(field);
}

/** The rules' problems under the flags' names. */
export function byFlag(problems: readonly RuleProblem[], clearRetailer = false): Problem[] {
  return problems.map((p) => ({ flag: ruleFlag(p.field, clearRetailer), message: p.message }));
}

/** The flags that are valid on their own, as the campaign rules read them (the others are format problems). */
export function ruleValues(f: Partial<CampaignFlags>, clearRetailer = false): CampaignValues {
  const day = (v: string | undefined) => (v !== undefined && !checkDay(v) ? v.trim() : undefined);
  const from = day(f.from);
  const through = day(f.through);
  const limit = f.codeLimit !== undefined ? parseCodeLimit(f.codeLimit) : undefined;
  const domain = f.retailerDomain?.trim().toLowerCase();
  return {
    dates: from !== undefined || through !== undefined ? { from, through } : undefined,
    codeLimit: limit?.ok ? Number(limit.value) : undefined,
    retailer: clearRetailer ? null : domain ? { emailDomain: domain } : undefined,
  };
}

/** The offer's rules that a new campaign must meet (src/spec/campaign-rules.ts), by flag name. */
export function offerProblems(f: CampaignFlags, offer: Offer): Problem[] {
  const out = byFlag(createProblems(ruleValues(f), offer));
  if (
    offer.canDistribute &&
    !offer.retailerChoiceRequired &&
    !f.retailerDomain?.trim() &&
    f.retailerName?.trim()
  )
    out.push({ flag: FLAG.retailerDomain, message: "is needed with --retailer-name" });
  return out;
}

export function problemLines(problems: Problem[]): string {
  return problems.map((p) => `  ${p.flag}: ${p.message}`).join("\n");
}

/** A reference for a campaign created without one: pcli-YYYYMMDD-<8 random characters>. */
export function generateReference(now: Date): string {
  const day = now.toISOString().slice(0, 10).replace(/-/g, "");
  const rand = randomBytes(6)
    .toString("base64url")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "x");
  return `pcli-${day}-${rand}`;
}

/** The POST /campaigns body from complete, checked flags. */
export function createBody(
  f: Required<Pick<CampaignFlags, (typeof REQUIRED)[number]>> & CampaignFlags,
  ref: string,
): CampaignCreate {
  const body: CampaignCreate = {
    name: f.name.trim(),
    baseGs1: f.offer.trim(),
    dates: { from: f.from.trim(), through: f.through.trim() },
    codeLimit: sent(parseCodeLimit(f.codeLimit), f.codeLimit),
    commission: {
      // Decimal text → JSON number: at most 4 decimal places, exact in a double's shortest form.
      rate: sent(parseRate(f.rate), f.rate),
      estimatedUnitSalePrice: sent(parseUnitPrice(f.unitPrice), f.unitPrice),
    },
    externalReference: ref,
  };
  if (given(f.retailerDomain) && given(f.retailerName))
    body.retailer = { emailDomain: f.retailerDomain.trim(), name: f.retailerName.trim() };
  return body;
}

/** The PATCH body from the update flags: only what was given. */
export function patchBody(
  f: Omit<CampaignFlags, "offer" | "externalReference">,
  clearRetailer: boolean,
): CampaignPatch {
  const body: CampaignPatch = {};
  if (given(f.name)) body.name = f.name.trim();
  if (given(f.from) || given(f.through)) {
    body.dates = {};
    if (given(f.from)) body.dates.from = f.from.trim();
    if (given(f.through)) body.dates.through = f.through.trim();
  }
  if (given(f.codeLimit)) body.codeLimit = sent(parseCodeLimit(f.codeLimit), f.codeLimit);
  if (given(f.rate) || given(f.unitPrice)) {
    body.commission = {};
    if (given(f.rate)) body.commission.rate = sent(parseRate(f.rate), f.rate);
    if (given(f.unitPrice))
      body.commission.estimatedUnitSalePrice = sent(parseUnitPrice(f.unitPrice), f.unitPrice);
  }
  if (clearRetailer) body.retailer = null;
  else if (given(f.retailerDomain) && given(f.retailerName))
    body.retailer = { emailDomain: f.retailerDomain.trim(), name: f.retailerName.trim() };
  return body;
}

/** rate × price, four places, ties to even (or undefined while either is not a valid decimal). */
export function perRedemption(rate: string | undefined, price: string | undefined): string | undefined {
  if (rate === undefined || price === undefined) return undefined;
  const r = parseRate(rate);
  const p = parseUnitPrice(price);
  if (!r.ok || !p.ok) return undefined;
  return estimatedPerRedemption(r.value, p.value);
}

/** "$1.2345" for a decimal dollar text. */
export function dollars(v: string | number): string {
  return `$${String(v)}`;
}

/** The campaign as "field value" rows (table/TSV record). */
export function campaignFields(c: Campaign): [string, unknown][] {
  return [
    ["id", c.id],
    ["externalReference", c.externalReference],
    ["name", c.name],
    ["status", isViewOnly(c) ? `${statusText(c)}: ${viewOnlyWhy(c)}` : c.status],
    ["offer", `${c.offer.baseGs1}${c.offer.title ? ` ${c.offer.title}` : ""}`],
    ["brand", c.offer.brand.name],
    ["dates", `${c.dates.from} to ${c.dates.through}`],
    [
      "retailer",
      c.retailer ? `${c.retailer.emailDomain}${c.retailer.name ? ` (${c.retailer.name})` : ""}` : null,
    ],
    ["commissionRate", c.commission.rate],
    ["estimatedUnitSalePrice", c.commission.estimatedUnitSalePrice],
    ["estimatedPerRedemption", c.commission.estimatedPerRedemption],
    ["codeLimit", c.codes.limit],
    ["codesIssued", c.codes.issued],
    ["codesRedeemed", c.codes.redeemed],
    ["testCodes", c.codes.testCodes],
    ["codesRemaining", c.codes.remaining],
    ["allowedStatuses", c.allowedStatuses.join(", ")],
    ["canChangeRetailer", c.canChangeRetailer],
    ["createdAt", c.createdAt],
    ["updatedAt", c.updatedAt],
  ];
}
