// Numbers and names for people (src/io/words.ts, src/io/money-words.ts): money on its decimal text (never a float),
// ratios as percentages, counts grouped, plurals, column titles in words.
import { describe, expect, it } from "vitest";
import { dollars, percent } from "../../src/io/money-words.js";
import { plural, titleOf } from "../../src/io/words.js";

describe("words for people", () => {
  it("money: currency, cents, thousands, rounded half up on the decimal text", () => {
    expect(dollars(1234.4962)).toBe("$1,234.50");
    expect(dollars("1.005")).toBe("$1.01"); // as a float, 1.005 * 100 is 100.49999…
    expect(dollars(0)).toBe("$0.00");
    expect(dollars(-0.25)).toBe("-$0.25");
    expect(dollars(1_000_000)).toBe("$1,000,000.00");
    expect(dollars("n/a")).toBe("n/a");
  });

  it("rates as percentages with one decimal; counts and plurals", () => {
    expect(percent(0.663)).toBe("66.3%");
    expect(percent("0.00025")).toBe("0.0%");
    expect(percent(1)).toBe("100.0%");
    expect(plural(1, "creator")).toBe("1 creator");
    expect(plural(200_000, "creator")).toBe("200,000 creators");
    expect(plural(1, "batch", "batches")).toBe("1 batch");
  });

  it("titles in words from API names", () => {
    expect(titleOf("codeLimit")).toBe("Code limit");
    expect(titleOf("brand.id")).toBe("Brand ID");
    expect(titleOf("shareUrl")).toBe("Share URL");
    expect(titleOf("baseGs1")).toBe("Base GS1");
    expect(titleOf("estCommission")).toBe("Est. commission");
  });
});
