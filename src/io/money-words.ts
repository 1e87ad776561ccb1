// Money and rates for a person, on the decimal text (decimal.js, never a float). Apart from words.ts
// so that printing a table or record loads decimal.js only for the commands whose columns hold money
// or rates: such a column names its formatter (\`kind: dollars\`), render.ts imports none.
import { Decimal } from "decimal.js";

/**
 * An amount in dollars for a person (the API's money is a decimal in dollars): "$1,234.50",
 * "-$0.25", rounded half up to cents on the decimal text (decimal.js, never a float). Anything that
 * is not a number is shown as it came.
 */
export function dollars(v: unknown): string {
  let d: Decimal;
  try {
    d = new Decimal(typeof v === "number" || typeof v === "string" ? v : Number.NaN);
  } catch {
    return String(v);
  }
  if (!d.isFinite()) return String(v);
  const [whole, cents] = d.abs().toFixed(2, Decimal.ROUND_HALF_UP).split(".");
  return `${d.isNegative() && !d.isZero() ? "-" : ""}$${whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}.${cents}`;
}

/** A ratio (0.663) as a percentage with one decimal ("66.3%"), on the decimal text. */
export function percent(v: unknown): string {
  try {
    return `${new Decimal(v as Decimal.Value).times(100).toFixed(1, Decimal.ROUND_HALF_UP)}%`;
  } catch {
    return String(v);
  }
}
