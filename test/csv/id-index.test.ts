import { describe, expect, it } from "vitest";
import { IdIndex } from "../../src/csv/id-index.js";

describe("IdIndex", () => {
  it("remembers the first line of each id, across growth from the smallest size", () => {
    const index = new IdIndex();
    const n = 200_000;
    for (let i = 0; i < n; i++) expect(index.firstLineOrAdd(`cr-${i}`, i + 2)).toBeUndefined();
    for (let i = 0; i < n; i += 997) expect(index.firstLineOrAdd(`cr-${i}`, 999_999)).toBe(i + 2);
    expect(index.firstLineOrAdd("cr-x", 5)).toBeUndefined();
  });

  it("ids that differ only in case, spaces or Unicode form are different ids", () => {
    const index = new IdIndex(10);
    for (const [i, id] of ["Ab", "ab", "a b", "é", "e\u0301", "", "\u0000"].entries())
      expect(index.firstLineOrAdd(id, i + 1), JSON.stringify(id)).toBeUndefined();
    expect(index.firstLineOrAdd("e\u0301", 99)).toBe(5);
  });

  it("sized from a known count, a million ids fit without a collision", () => {
    const index = new IdIndex(1_000_000);
    let repeats = 0;
    for (let i = 0; i < 1_000_000; i++)
      if (index.firstLineOrAdd(`m1-${String(i).padStart(7, "0")}`, i) !== undefined) repeats++;
    expect(repeats).toBe(0);
  });
});
