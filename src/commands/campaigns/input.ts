// Numbers as people type them in the campaign form (flags and prompts alike): a rate as 10% or
// 0.1, a price as $4.99 or 4.99, a count as 1,000 or 1000. Each parser returns the value the API is
// sent (canonical decimal text) and how to show what was understood, or the reason it is refused;
// the reasons state the same ranges the prompts show.
import { Decimal } from "decimal.js";
import { codeLimitMax, grouped } from "../../spec/campaign-rules.js";
import { checkDecimal, COMMISSION_RATE, UNIT_SALE_PRICE } from "../../spec/campaigns.js";
import { LIMITS } from "../../spec/limits.js";

export { codeLimitMax, grouped };

export type Parsed = { ok: true; value: string; shown: string } | { ok: false; reason: string };

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** "1,000" → "1000", "12,500.50" → "12500.50"; commas must group thousands. Undefined otherwise. */
function ungroup(t: string): string | undefined {
  if (!t.includes(",")) return t;
  return /^[+-]?\d{1,3}(,\d{3})+(\.\d*)?$/.test(t) ? t.replace(/,/g, "") : undefined;
}

/** Dollars with cents when there are any: "4.99" → "$4.99", "5" → "$5", "1000" → "$1,000". */
function money(value: string): string {
  const d = new Decimal(value);
  const whole = grouped(d.trunc().toFixed());
  return d.isInteger() ? `$${whole}` : `$${whole}.${d.toFixed(2).split(".")[1]}`;
}

/** A fraction as a percentage text: "0.125" → "12.5%". */
export function percent(fraction: string): string {
  return `${new Decimal(fraction).mul(100).toFixed()}%`;
}

/** Commission rate: 0 to 1 with up to 4 decimals, or 0% to 100% with up to 2. */
export function parseRate(text: string): Parsed {
  const t = text.trim();
  const isPercent = t.endsWith("%");
  const num = isPercent ? t.slice(0, -1).trim() : t;
  if (!DECIMAL.test(num))
    return { ok: false, reason: "must be a percentage like 10% or a fraction like 0.1" };
  const fraction = isPercent ? new Decimal(num).div(100).toFixed() : num;
  const r = checkDecimal(fraction, COMMISSION_RATE);
  if (!r.ok) {
    if (/between/.test(r.reason))
      return {
        ok: false,
        reason: isPercent
          ? "must be between 0% and 100%"
          : "must be between 0 and 1 as a fraction (0.1 means 10%), or a percentage like 10%",
      };
    return {
      ok: false,
      reason: isPercent
        ? "must have at most 2 decimal places as a percentage (12.25%)"
        : "must have at most 4 decimal places as a fraction (0.1225)",
    };
  }
  return { ok: true, value: r.value, shown: `${r.value} (${percent(r.value)})` };
}

/** Estimated unit sale price in dollars: 0 to 100,000 with up to 2 decimals; "$" and "1,000" accepted. */
export function parseUnitPrice(text: string): Parsed {
  let t = text.trim();
  if (t.startsWith("$")) t = t.slice(1).trim();
  const plain = ungroup(t);
  if (plain === undefined || !DECIMAL.test(plain))
    return { ok: false, reason: "must be an amount in dollars like 4.99 or $4.99" };
  const r = checkDecimal(plain, UNIT_SALE_PRICE);
  if (!r.ok) {
    if (/between/.test(r.reason))
      return { ok: false, reason: `must be between $0 and ${money(String(LIMITS.unitSalePriceMax))}` };
    return { ok: false, reason: "must have at most 2 decimal places (cents)" };
  }
  return { ok: true, value: r.value, shown: money(r.value) };
}

/**
 * Code limit: a whole number from 1 to 10,000,000 ("1,000" accepted), and at most `codesAvailable`
 * when the offer says how many it has.
 */
export function parseCodeLimit(text: string, codesAvailable?: number | null): Parsed {
  const plain = ungroup(text.trim());
  if (plain === undefined || !/^\d+$/.test(plain))
    return { ok: false, reason: "must be a whole number like 1000 or 1,000" };
  const n = Number(plain);
  const max = codeLimitMax(codesAvailable);
  // The range stated is the one the prompt shows: the offer's codes when they are the lower bound.
  if (n < LIMITS.codeLimitMin || n > max)
    return {
      ok: false,
      reason:
        max < LIMITS.codeLimitMax
          ? `must be between 1 and ${grouped(max)} (the codes the offer has available)`
          : `must be between 1 and ${grouped(max)}`,
    };
  return { ok: true, value: String(n), shown: grouped(n) };
}
