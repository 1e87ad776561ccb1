// Limits: paging of list endpoints (creators and offers) exactly as the spec says.
import { beforeAll, describe, expect, it } from "vitest";
import { strictCreators } from "../../src/spec/creators.js";
import { strictOffers } from "../../src/spec/offers.js";
import { expectError, strict } from "./core-util.js";
import { useSandbox } from "../helpers/harness.js";

const s = useSandbox({ seed: "empty" });
const TOTAL = 260;
beforeAll(async () => {
  const creators = Array.from({ length: TOTAL }, (_, i) => ({
    externalId: `p-${String(i).padStart(4, "0")}`,
    name: `Creator ${i}`,
  }));
  const res = await s.http("POST", "/creators/batch", { body: { creators } });
  expect(res.body.summary.added).toBe(TOTAL);
});

const page = async (q: string) => strict(strictCreators.CreatorPage, await s.http("GET", `/creators${q}`));

describe("paging", () => {
  it("defaults: page 0, pageSize 50, totalCount counts all", async () => {
    const p = await page("");
    expect(p.page).toBe(0);
    expect(p.pageSize).toBe(50);
    expect(p.items).toHaveLength(50);
    expect(p.totalCount).toBe(TOTAL);
    expect(p.items[0]!.externalId).toBe("p-0000");
  });
  it("page starts at 0 and pages do not overlap", async () => {
    const p0 = await page("?page=0&pageSize=100");
    const p1 = await page("?page=1&pageSize=100");
    const p2 = await page("?page=2&pageSize=100");
    expect(p1.items[0]!.externalId).toBe("p-0100");
    expect(p2.items).toHaveLength(60);
    const ids = [...p0.items, ...p1.items, ...p2.items].map((c) => c.externalId);
    expect(new Set(ids).size).toBe(TOTAL);
    expect(p2.totalCount).toBe(TOTAL);
  });
  it("a page past the end is empty but still counts all", async () => {
    const p = await page("?page=99");
    expect(p.items).toEqual([]);
    expect(p.page).toBe(99);
    expect(p.totalCount).toBe(TOTAL);
  });
  it("pageSize above 200 becomes 200", async () => {
    const p = await page("?pageSize=201");
    expect(p.pageSize).toBe(200);
    expect(p.items).toHaveLength(200);
    expect((await page("?pageSize=100000")).pageSize).toBe(200);
    expect((await page("?pageSize=200")).pageSize).toBe(200);
  });
  it("pageSize zero or negative becomes 50", async () => {
    for (const v of ["0", "-1", "-500"]) {
      const p = await page(`?pageSize=${v}`);
      expect(p.pageSize).toBe(50);
      expect(p.items).toHaveLength(50);
    }
  });
  it("a negative page becomes 0", async () => {
    const p = await page("?page=-3&pageSize=10");
    expect(p.page).toBe(0);
    expect(p.items[0]!.externalId).toBe("p-0000");
  });
  it("an empty value means the default", async () => {
    const p = await page("?page=&pageSize=");
    expect([p.page, p.pageSize]).toEqual([0, 50]);
  });
  it("non-integer page or pageSize is a 400 keyed by the parameter", async () => {
    for (const [q, key] of [
      ["?page=1.5", "page"],
      ["?page=abc", "page"],
      ["?pageSize=ten", "pageSize"],
      ["?pageSize=2e2", "pageSize"],
      ["?page=99999999999999999999", "page"],
    ] as const) {
      expectError(await s.http("GET", `/creators${q}`), 400, "validation_failed", [key]);
    }
    expectError(await s.http("GET", "/offers?pageSize=x"), 400, "validation_failed", ["pageSize"]);
  });
  it("offers are paged the same way", async () => {
    const o = strict(strictOffers.OfferPage, await s.http("GET", "/offers?pageSize=3&page=1"));
    expect(o.page).toBe(1);
    expect(o.pageSize).toBe(3);
    expect(o.items).toHaveLength(3);
    expect(o.totalCount).toBe(8);
    const big = strict(strictOffers.OfferPage, await s.http("GET", "/offers?pageSize=0&page=-1"));
    expect([big.page, big.pageSize, big.items.length]).toEqual([0, 50, 8]);
  });
});
