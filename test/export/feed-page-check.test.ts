// The feed page check the export's reads use accepts exactly what zod's loose schema accepts and
// returns the same data (same fields, same order, so NDJSON lines keep their bytes) or the same error.
import { describe, expect, it, vi } from "vitest";
import { feedPageSchema } from "../../src/api/redemptions.js";
import { looseRedemptions } from "../../src/spec/redemptions.js";
import { prng } from "../../src/sandbox/simulate.js";

/** Seeded (mulberry32), so a failing case can be run again. */
const rng = (seed: number) => prng(seed);

const STAMPS = [
  "2026-11-23T05:04:01Z",
  "2026-11-23T05:04:01.123Z",
  "2026-11-23T05:04:01",
  "2026-11-23 05:04:01Z",
  "2026-11-23T05:04:01+00:00",
  "x2026-11-23T05:04:01Z",
  "",
];

/** A valid redemption, as the sandbox sends it (retailer before creator). */
function valid(r: () => number, i: number): Record<string, unknown> {
  return {
    id: `id-${i}`,
    serializedGs1: `0012345000028${String(i).padStart(10, "0")}`,
    redeemedAt: STAMPS[r() < 0.8 ? 0 : 1],
    recordedAt: STAMPS[r() < 0.8 ? 0 : 1],
    campaign: { id: "c1", externalReference: r() < 0.5 ? null : "ref", name: "Camp" },
    offer: { baseGs1: "0012345000028", title: r() < 0.5 ? null : "Offer" },
    brand: { id: "b1", name: "Brand" },
    retailer: r() < 0.5 ? null : { emailDomain: "shop.example", name: r() < 0.5 ? null : "Shop" },
    creator: r() < 0.3 ? null : { externalId: `cr-${i}`, name: "Creator" },
    countingState: ["counted", "excluded", "test_code", "something_new"][Math.floor(r() * 4)],
    exclusion: r() < 0.7 ? null : { excludedAt: STAMPS[0], reason: r() < 0.5 ? null : "fraud" },
  };
}

const ODD = [undefined, null, 0, 1.5, true, "", "text", [], [1], {}, { id: "x" }, STAMPS[2], STAMPS[4]];

/** A random change to one place of a redemption: a field removed, retyped, added, or an object replaced. */
function mutate(r: () => number, x: Record<string, unknown>): void {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const objects = ["campaign", "offer", "brand", "retailer", "creator", "exclusion"].filter(
    (k) => x[k] !== null && typeof x[k] === "object",
  );
  const target = r() < 0.5 || objects.length === 0 ? x : (x[pick(objects)] as Record<string, unknown>);
  const keys = Object.keys(target);
  const kind = r();
  if (kind < 0.25) delete target[pick(keys)];
  else if (kind < 0.6) target[pick(keys)] = pick(ODD);
  else if (kind < 0.8)
    target[pick(["extra", "zz", "__proto__", "id2"])] = pick(ODD.filter((v) => v !== undefined));
  else target[pick(keys)] = pick(STAMPS);
}

function page(r: () => number): unknown {
  const n = Math.floor(r() * 5);
  const items: unknown[] = Array.from({ length: n }, (_, i) => valid(r, i));
  const body: Record<string, unknown> = { items, nextCursor: r() < 0.2 ? null : "cur" };
  const bad = r();
  if (bad < 0.5 && n > 0) mutate(r, items[Math.floor(r() * n)] as Record<string, unknown>);
  else if (bad < 0.55) body.extra = { a: 1 };
  else if (bad < 0.6) body.nextCursor = 5;
  else if (bad < 0.62) delete body.nextCursor;
  else if (bad < 0.64) body.items = { 0: valid(r, 0) };
  else if (bad < 0.65) return [body];
  else if (bad < 0.66) return null;
  // Through JSON, as the client receives it ("__proto__" becomes an own key).
  return JSON.parse(JSON.stringify(body));
}

describe("the feed page check", () => {
  it("agrees with zod's loose schema on 20,000 random pages: success, data (its JSON's bytes) and errors", () => {
    const r = rng(14);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 20_000; i++) {
      const body = page(r);
      const fast = feedPageSchema.safeParse(structuredClone(body));
      const ref = looseRedemptions.RedemptionFeedPage.safeParse(structuredClone(body));
      expect(fast.success).toBe(ref.success);
      if (ref.success) {
        accepted++;
        expect(JSON.stringify(fast.data)).toBe(JSON.stringify(ref.data));
      } else {
        refused++;
        expect(fast.error?.issues).toEqual(ref.error.issues);
      }
    }
    expect(accepted).toBeGreaterThan(5000);
    expect(refused).toBeGreaterThan(2000);
  });

  it("checks a page of exact redemptions without zod, in the schema's field order; unknown fields and states kept", () => {
    const x = valid(rng(1), 1);
    const zod = vi.spyOn(looseRedemptions.RedemptionFeedPage, "safeParse");
    const r = rng(3);
    const many = feedPageSchema.safeParse({
      items: Array.from({ length: 1000 }, (_, i) => valid(r, i)),
      nextCursor: "c",
    });
    expect(many.success).toBe(true);
    expect(zod).not.toHaveBeenCalled();
    const fast = feedPageSchema.safeParse({ items: [x], nextCursor: null });
    expect(Object.keys(fast.data!.items[0]!)).toEqual([
      "id",
      "serializedGs1",
      "redeemedAt",
      "recordedAt",
      "campaign",
      "offer",
      "brand",
      "creator",
      "retailer",
      "countingState",
      "exclusion",
    ]);
    zod.mockRestore();

    const extended = { ...x, loyaltyTier: "gold", countingState: "pending_review" };
    const kept = feedPageSchema.safeParse({ items: [extended], nextCursor: "c" });
    expect(kept.success).toBe(true);
    expect(kept.data!.items[0]).toMatchObject({ loyaltyTier: "gold", countingState: "pending_review" });
  });
});
