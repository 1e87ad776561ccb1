import { describe, expect, it } from "vitest";
import {
  commissionExact,
  dec,
  estimatedCommission,
  ratio,
  round4,
  salesValue,
  toJsonNumber,
} from "../../src/sandbox/domain/money.js";

const est = (rate: string | number, price: string | number, n: number) =>
  toJsonNumber(estimatedCommission(rate, price, n));

describe("money", () => {
  it("rounds once to four decimals, ties to even", () => {
    expect(est("0.125", "1.00", 1)).toBe(0.125);
    expect(est("0.0001", "0.5", 1)).toBe(0); // 0.00005 → 0.0000 (tie, 0 is even)
    expect(est("0.0003", "0.5", 1)).toBe(0.0002); // 0.00015 → 0.0002 (tie, 2 is even)
    expect(est("0.0005", "0.5", 1)).toBe(0.0002); // 0.00025 → 0.0002
    expect(est("0.0007", "0.5", 1)).toBe(0.0004); // 0.00035 → 0.0004
    expect(est("0.0001", "0.51", 1)).toBe(0.0001); // 0.000051 → 0.0001 (not a tie)
    expect(toJsonNumber(round4(dec("2.00005")))).toBe(2);
    expect(toJsonNumber(round4(dec("2.00015")))).toBe(2.0002);
  });

  it("rounds the product once, not per redemption", () => {
    // 3 × 0.00005 = 0.00015 → 0.0002; rounding each first would give 0.
    expect(est("0.0001", "0.5", 3)).toBe(0.0002);
    expect(commissionExact("0.0001", "0.5", 3).toFixed()).toBe("0.00015");
  });

  it("uses decimal, not float, arithmetic", () => {
    expect(est(0.1, 0.3, 3)).toBe(0.09); // floats: 0.1*0.3*3 = 0.09000000000000001
    expect(toJsonNumber(salesValue("19.99", 3))).toBe(59.97);
    expect(toJsonNumber(salesValue(0.1, 3))).toBe(0.3);
  });

  it("gives ratios or null, never 0 for nothing to divide by", () => {
    expect(ratio(0, 0)).toBeNull();
    expect(ratio(0, 5)).toBe(0);
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(2, 3)).toBe(0.6667);
  });
});
