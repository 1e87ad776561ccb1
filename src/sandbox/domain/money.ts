// Money and rates as decimals (decimal.js), never floats (spec: general rule 3, Report field
// semantics 9; architecture: half-even rounding to 4 places). Campaign inputs arrive as canonical
// decimal text (src/spec/campaigns.ts) or JSON numbers; JSON numbers go in through their shortest
// round-trip text, so 0.1 is exactly one tenth here.
import { Decimal } from "decimal.js";

/** A Decimal constructor with enough precision for any product of our inputs and half-even rounding. */
export const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_EVEN });
export type Dec = InstanceType<typeof Dec>;

export const ZERO = new Dec(0);

export function dec(v: string | number | Dec): Dec {
  return v instanceof Dec ? v : new Dec(typeof v === "number" ? String(v) : v);
}

/** Rounds once to four decimals, ties to even. */
export function round4(d: Dec): Dec {
  return d.toDecimalPlaces(4, Decimal.ROUND_HALF_EVEN);
}

/** A decimal as a JSON number (the shortest double that prints back as the decimal). */
export function toJsonNumber(d: Dec): number {
  return Number(d.toFixed());
}

/** rate × unit price × count, exact (no rounding). */
export function commissionExact(rate: string | number, unitPrice: string | number, count: number): Dec {
  return dec(rate).mul(dec(unitPrice)).mul(count);
}

/** rate × unit price × count, rounded once to four decimals, ties to even. */
export function estimatedCommission(rate: string | number, unitPrice: string | number, count: number): Dec {
  return round4(commissionExact(rate, unitPrice, count));
}

/** unit price × count (estimatedSalesValue); exact, since a price has at most two decimals. */
export function salesValue(unitPrice: string | number, count: number): Dec {
  return dec(unitPrice).mul(count);
}

/** numerator / denominator as a ratio, null (never 0) when there is nothing to divide by; 4 places half-even. */
export function ratio(numerator: number, denominator: number): number | null {
  if (denominator === 0) return null;
  return toJsonNumber(round4(new Dec(numerator).div(denominator)));
}

export function sum(values: Iterable<Dec>): Dec {
  let s = ZERO;
  for (const v of values) s = s.add(v);
  return s;
}
