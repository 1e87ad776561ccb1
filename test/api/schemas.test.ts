// Tolerant parsing: the client's loose schemas accept unknown fields and unknown enum values (spec
// general rule 4); the sandbox's strict ones refuse them. Required fields stay required in both.
import { describe, expect, it } from "vitest";
import { looseCreators, strictCreators } from "../../src/spec/creators.js";
import { ErrorBody } from "../../src/spec/kit.js";
import { looseOffers, strictOffers } from "../../src/spec/offers.js";

const offer = {
  baseGs1: "0012345000011",
  brand: { id: "5b0c7f3e-1c1d-4e55-9a57-3c1f0b9f0001", name: "Crunchy Oats Co." },
  title: "Crunchy Oats 12oz: $1.50 off",
  description: null,
  state: "available",
  canDistribute: true,
  savings: { cents: 150, display: "$1.50 off" },
  productBarcodes: ["001234500001"],
  campaignDates: null,
  redemptionDates: { from: "2026-01-01", through: "2026-06-30" },
  codesAvailable: 50_000,
  retailerChoiceRequired: false,
  allowedRetailers: [],
  lastUpdatedAt: "2026-01-01T00:00:00Z",
};

describe("loose vs strict", () => {
  it("a spec-shaped offer passes both", () => {
    expect(strictOffers.Offer.parse(offer)).toEqual(offer);
    expect(looseOffers.Offer.parse(offer)).toEqual(offer);
  });

  it("an unknown top-level and nested field: loose keeps them, strict refuses", () => {
    const newer = { ...offer, loyaltyTier: 2, brand: { ...offer.brand, logoUrl: "https://x.example/l.png" } };
    const parsed = looseOffers.Offer.parse(newer) as Record<string, unknown>;
    expect(parsed.loyaltyTier).toBe(2);
    expect((parsed.brand as Record<string, unknown>).logoUrl).toBe("https://x.example/l.png");
    expect(strictOffers.Offer.safeParse(newer).success).toBe(false);
  });

  it("an unknown enum value: loose accepts it, strict refuses", () => {
    const newer = { ...offer, state: "archived_by_brand" };
    expect(looseOffers.Offer.parse(newer).state).toBe("archived_by_brand");
    expect(strictOffers.Offer.safeParse(newer).success).toBe(false);
    const row = { index: 0, externalId: "a", outcome: "merged", reasons: [] };
    expect(looseCreators.BatchRow.parse(row).outcome).toBe("merged");
    expect(strictCreators.BatchRow.safeParse(row).success).toBe(false);
  });

  it("pages: unknown wrapper fields pass loose", () => {
    const page = { items: [offer], page: 0, pageSize: 50, totalCount: 1, nextPageHint: "x" };
    expect(looseOffers.OfferPage.parse(page).items).toHaveLength(1);
    expect(strictOffers.OfferPage.safeParse(page).success).toBe(false);
  });

  it("a missing required field or a wrong type fails both", () => {
    const { baseGs1: _drop, ...missing } = offer;
    expect(looseOffers.Offer.safeParse(missing).success).toBe(false);
    expect(looseOffers.Offer.safeParse({ ...offer, baseGs1: 12345000011 }).success).toBe(false);
    expect(looseOffers.Offer.safeParse({ ...offer, productBarcodes: [1234] }).success).toBe(false);
  });

  it("identifiers stay strings with their leading zeros", () => {
    const parsed = looseOffers.Offer.parse(offer);
    expect(parsed.baseGs1).toBe("0012345000011");
    expect(parsed.productBarcodes[0]).toBe("001234500001");
  });
});

describe("error bodies", () => {
  it("details keyed by field path, as sent, and unknown fields tolerated", () => {
    const body = {
      error: {
        code: "validation_failed",
        message: "The campaign is not valid.",
        details: {
          "dates.through": ["must be on or after dates.from"],
          "creators.3.email": ["is not valid"],
        },
        requestId: "r-1",
      },
    };
    const parsed = ErrorBody.parse(body);
    expect(parsed.error.details).toEqual(body.error.details);
    expect(ErrorBody.safeParse({ error: { code: "x" } }).success).toBe(false);
    expect(ErrorBody.safeParse({ message: "x" }).success).toBe(false);
  });
});
