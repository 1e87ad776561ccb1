// Campaign resource, its create/PATCH/status bodies and their rules (spec: Campaign table, Campaign
// status, Campaigns endpoints, Limits). Shared by the CLI (local pre-validation, lenient response
// parsing) and the sandbox (request validation, strict response checks in tests).
//
// Decimals (commission.rate, commission.estimatedUnitSalePrice): accepted as JSON numbers or as
// decimal strings ("0.15"); decimal places are counted on the decimal text, never with float
// arithmetic. Responses carry JSON numbers. Rule helpers turn a valid value into canonical decimal
// text (no exponent, no trailing zeros), which is what the sandbox stores.
import { Decimal } from "decimal.js";
import { z } from "zod";
import { CalendarDay, type Kit, kit, pageOf, Timestamp } from "./kit.js";
import { LIMITS } from "./limits.js";
import { isCalendarDay } from "./ranges.js";

export const CAMPAIGN_STATUSES = ["draft", "active", "paused", "ended"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** Values a client sends to POST /campaigns/{id}/status. */
const STATUS_TARGETS = ["active", "paused", "ended"] as const;
export type StatusTarget = (typeof STATUS_TARGETS)[number];

/** The Campaign status table: statuses reachable next from each status (view-only aside). */
export const NEXT_STATUSES: Record<CampaignStatus, readonly CampaignStatus[]> = {
  draft: ["active", "ended"],
  active: ["paused", "ended"],
  paused: ["active", "ended"],
  ended: [],
};

export const COMMISSION_RATE = { min: "0", max: "1", places: 4 } as const;
export const UNIT_SALE_PRICE = { min: "0", max: String(LIMITS.unitSalePriceMax), places: 2 } as const;

function campaignSchemas(k: Kit, mode: "strict" | "loose") {
  // Decimals arrive as JSON numbers from the service; the client also tolerates decimal strings.
  const Dec = mode === "strict" ? z.number() : z.union([z.number(), z.string()]);
  const BrandRef = k.obj({ id: z.string(), name: z.string() });
  const CampaignReference = k.obj({
    id: z.string(),
    externalReference: z.string().nullable(),
    name: z.string(),
  });
  const CampaignOffer = k.obj({ baseGs1: z.string(), title: z.string().nullable(), brand: BrandRef });
  const DateSpan = k.obj({ from: CalendarDay, through: CalendarDay });
  const Retailer = k.obj({ emailDomain: z.string(), name: z.string().nullable() });
  const Commission = k.obj({ rate: Dec, estimatedUnitSalePrice: Dec, estimatedPerRedemption: Dec });
  const Codes = k.obj({
    limit: z.number().int(),
    issued: z.number().int(),
    redeemed: z.number().int(),
    testCodes: z.number().int(),
    remaining: z.number().int(),
  });
  const Campaign = k.obj({
    id: z.string(),
    externalReference: z.string().nullable(),
    name: z.string(),
    status: k.en(CAMPAIGN_STATUSES),
    offer: CampaignOffer,
    dates: DateSpan,
    retailer: Retailer.nullable(),
    commission: Commission,
    codes: Codes,
    allowedStatuses: z.array(k.en(CAMPAIGN_STATUSES)),
    canChangeRetailer: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  });
  return {
    BrandRef,
    CampaignReference,
    CampaignOffer,
    DateSpan,
    Retailer,
    Commission,
    Codes,
    Campaign,
    CampaignPage: pageOf(k, Campaign),
  };
}
export const strictCampaigns = campaignSchemas(kit("strict"), "strict");
export const looseCampaigns = campaignSchemas(kit("loose"), "loose");
export type Campaign = z.infer<typeof strictCampaigns.Campaign>;
export type CampaignReference = z.infer<typeof strictCampaigns.CampaignReference>;
export type CampaignCodes = z.infer<typeof strictCampaigns.Codes>;
export type CampaignRetailer = z.infer<typeof strictCampaigns.Retailer>;

// ---------------------------------------------------------------------------------------------
// Rule helpers (request side)

const oneLine = (s: string) => !/[\r\n\u2028\u2029]/.test(s);
const req = (what: string) => (iss: { input: unknown }) =>
  iss.input === undefined ? "is required" : `must be ${what}`;

const DECIMAL_TEXT_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * The decimal text of a JSON number or decimal string, or undefined when it is not a decimal.
 * Numbers use JavaScript's shortest round-trip text (what the sender wrote, e.g. 0.12345).
 */
export function decimalText(v: unknown): string | undefined {
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : undefined;
  if (typeof v === "string") {
    const t = v.trim();
    return DECIMAL_TEXT_RE.test(t) ? t : undefined;
  }
  return undefined;
}

/** Decimal places of a decimal text, counted on the text (trailing zeros do not count). */
export function decimalPlaces(text: string): number {
  return new Decimal(text).decimalPlaces();
}

/** Canonical decimal text: no exponent, no trailing zeros ("0.1500" → "0.15", "1e-4" → "0.0001"). */
export function canonicalDecimal(text: string): string {
  return new Decimal(text).toFixed();
}

export interface DecimalBounds {
  readonly min: string;
  readonly max: string;
  readonly places: number;
}

/** Checks a decimal value; returns its canonical text or the reason it is refused. */
export function checkDecimal(
  v: unknown,
  b: DecimalBounds,
): { ok: true; value: string } | { ok: false; reason: string } {
  const text = decimalText(v);
  if (text === undefined) return { ok: false, reason: "must be a decimal number" };
  const d = new Decimal(text);
  if (d.lt(b.min) || d.gt(b.max)) return { ok: false, reason: `must be between ${b.min} and ${b.max}` };
  if (d.decimalPlaces() > b.places)
    return { ok: false, reason: `must have at most ${b.places} decimal place${b.places === 1 ? "" : "s"}` };
  return { ok: true, value: d.toFixed() };
}

/** A decimal rule as zod: number or decimal string in, canonical decimal text out. */
function decimalRule(b: DecimalBounds) {
  return z.unknown().transform((v, ctx) => {
    if (v === undefined) {
      ctx.issues.push({ code: "custom", message: "is required", input: v });
      return z.NEVER;
    }
    const r = checkDecimal(v, b);
    if (!r.ok) {
      ctx.issues.push({ code: "custom", message: r.reason, input: v });
      return z.NEVER;
    }
    return r.value;
  });
}
const RateRule = decimalRule(COMMISSION_RATE);
const UnitSalePriceRule = decimalRule(UNIT_SALE_PRICE);

// isCalendarDay lives in the zod-free ranges module; re-exported for the campaign rules' users.
export { isCalendarDay };
const DayRule = z
  .string({ error: req("a calendar day YYYY-MM-DD") })
  .refine(isCalendarDay, "must be a calendar day YYYY-MM-DD");

export const CampaignNameRule = z
  .string({ error: req("a string") })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, "must not be blank")
      .max(LIMITS.campaignNameMax, `must be at most ${LIMITS.campaignNameMax} characters`)
      .refine(oneLine, "must be one line"),
  );

export const ExternalReferenceRule = z
  .string({ error: req("a string") })
  .transform((s) => s.trim())
  .pipe(
    z
      .string()
      .min(1, "must not be blank")
      .max(LIMITS.externalReferenceMax, `must be at most ${LIMITS.externalReferenceMax} characters`)
      .refine(oneLine, "must be one line"),
  );

const CodeLimitRule = z
  .number({ error: req("an integer") })
  .int("must be an integer")
  .min(LIMITS.codeLimitMin, `must be between ${LIMITS.codeLimitMin} and 10,000,000`)
  .max(LIMITS.codeLimitMax, `must be between ${LIMITS.codeLimitMin} and 10,000,000`);

const BaseGs1Rule = z
  .string({ error: req("a string") })
  .transform((s) => s.trim())
  .pipe(z.string().min(1, "is required"));

const TrimmedNonBlank = z
  .string({ error: req("a string") })
  .transform((s) => s.trim())
  .pipe(z.string().min(1, "must not be blank").refine(oneLine, "must be one line"));

/** retailer: both emailDomain (one of the offer's allowedRetailers) and name, together. */
const RetailerRule = z.object(
  {
    emailDomain: TrimmedNonBlank.transform((s) => s.toLowerCase()),
    name: TrimmedNonBlank,
  },
  { error: req("an object {emailDomain, name} or null") },
);
export type RetailerInput = z.infer<typeof RetailerRule>;

const notBefore = (dates: { from?: string | null | undefined; through?: string | null | undefined }) =>
  !dates.from || !dates.through || dates.through >= dates.from;

/** POST /campaigns body. Offer-dependent rules (dates inside redemptionDates, codesAvailable, retailer) are checked by the service. */
export const CampaignCreateBody = z.object(
  {
    name: CampaignNameRule,
    baseGs1: BaseGs1Rule,
    dates: z
      .object({ from: DayRule, through: DayRule }, { error: req("an object {from, through}") })
      .refine(notBefore, { message: "must be on or after dates.from", path: ["through"] }),
    codeLimit: CodeLimitRule,
    retailer: RetailerRule.nullish(),
    commission: z.object(
      { rate: RateRule, estimatedUnitSalePrice: UnitSalePriceRule },
      { error: req("an object {rate, estimatedUnitSalePrice}") },
    ),
    externalReference: ExternalReferenceRule.nullish(),
  },
  { error: "must be a JSON object" },
);
export type CampaignCreateBody = z.infer<typeof CampaignCreateBody>;
/** What a client sends (decimals as numbers or decimal strings). */
export type CampaignCreateInput = z.input<typeof CampaignCreateBody>;

const nullishDecimal = (b: DecimalBounds) =>
  z
    .unknown()
    .transform((v, ctx): string | undefined => {
      if (v === undefined || v === null) return undefined;
      const r = checkDecimal(v, b);
      if (!r.ok) {
        ctx.issues.push({ code: "custom", message: r.reason, input: v });
        return z.NEVER;
      }
      return r.value;
    })
    .optional();

const immutable = z.unknown().superRefine((v, ctx) => {
  if (v !== undefined) ctx.addIssue({ code: "custom", message: "cannot be changed" });
});

/**
 * PATCH /campaigns/{id} body. After parsing, undefined means "keep" (absent or null, rule 5),
 * except `retailer`, where null means "clear" (rule 3). dates and commission merge per nested
 * field (rule 4). baseGs1 and externalReference are refused when sent (rule 6).
 */
export const CampaignPatchBody = z
  .object(
    {
      name: CampaignNameRule.nullish().transform((v) => v ?? undefined),
      dates: z
        .object(
          {
            from: DayRule.nullish().transform((v) => v ?? undefined),
            through: DayRule.nullish().transform((v) => v ?? undefined),
          },
          { error: "must be an object {from, through} or null" },
        )
        .nullish()
        .transform((v) => v ?? undefined),
      codeLimit: CodeLimitRule.nullish().transform((v) => v ?? undefined),
      retailer: RetailerRule.nullable().optional(),
      commission: z
        .object(
          {
            rate: nullishDecimal(COMMISSION_RATE),
            estimatedUnitSalePrice: nullishDecimal(UNIT_SALE_PRICE),
          },
          { error: "must be an object {rate, estimatedUnitSalePrice} or null" },
        )
        .nullish()
        .transform((v) => v ?? undefined),
      baseGs1: immutable.optional(),
      externalReference: immutable.optional(),
    },
    { error: "must be a JSON object" },
  )
  .superRefine((b, ctx) => {
    if (b.dates && !notBefore(b.dates))
      ctx.addIssue({ code: "custom", message: "must be on or after dates.from", path: ["dates", "through"] });
  });
export type CampaignPatchBody = z.infer<typeof CampaignPatchBody>;
export type CampaignPatchInput = z.input<typeof CampaignPatchBody>;

/** POST /campaigns/{id}/status body. "draft" parses (a same-status request on a draft is allowed). */
export const CampaignStatusBody = z.object(
  {
    status: z.enum(CAMPAIGN_STATUSES, { error: "must be one of active, paused, ended" }),
  },
  { error: "must be a JSON object" },
);
export type CampaignStatusBody = z.infer<typeof CampaignStatusBody>;

/** Decimal arithmetic of the spec: rate × price, four places, ties to even. */
export function estimatedPerRedemption(rate: string, unitPrice: string): string {
  return new Decimal(rate).mul(unitPrice).toDecimalPlaces(4, Decimal.ROUND_HALF_EVEN).toFixed();
}
