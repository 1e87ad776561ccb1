// The shared request rules of src/spec/campaigns.ts and src/spec/links.ts (the CLI pre-validates with
// them) and the strict/loose response schemas.
import { describe, expect, it } from "vitest";
import {
  CampaignCreateBody,
  CampaignPatchBody,
  CampaignStatusBody,
  canonicalDecimal,
  checkDecimal,
  COMMISSION_RATE,
  decimalPlaces,
  decimalText,
  estimatedPerRedemption,
  isCalendarDay,
  looseCampaigns,
  strictCampaigns,
  UNIT_SALE_PRICE,
} from "../../src/spec/campaigns.js";
import { issueDetails } from "../../src/spec/creators.js";
import {
  AssignmentBody,
  LinkPatchBody,
  looseLinks,
  normalizeShortCode,
  strictLinks,
} from "../../src/spec/links.js";
import { SEED } from "../../src/sandbox/seed.js";

const good = {
  name: "N",
  baseGs1: SEED.offers.oats,
  dates: { from: "2026-01-01", through: "2026-01-31" },
  codeLimit: 10,
  commission: { rate: 0.1, estimatedUnitSalePrice: 2 },
};
const details = (r: { success: boolean; error?: unknown }) =>
  r.success ? {} : issueDetails(r.error as Parameters<typeof issueDetails>[0]);

describe("decimal helpers", () => {
  it("read decimal text of numbers and strings; count places on the text", () => {
    expect(decimalText(0.12345)).toBe("0.12345");
    expect(decimalText(" 1.50 ")).toBe("1.50");
    expect(decimalText("1,5")).toBeUndefined();
    expect(decimalText("abc")).toBeUndefined();
    expect(decimalText(Number.NaN)).toBeUndefined();
    expect(decimalText(true)).toBeUndefined();
    expect(decimalPlaces("0.12345")).toBe(5);
    expect(decimalPlaces("1.50")).toBe(1);
    expect(decimalPlaces(String(1e-7))).toBe(7);
    expect(canonicalDecimal("0.1500")).toBe("0.15");
    expect(canonicalDecimal("1e-4")).toBe("0.0001");
  });

  it("checkDecimal: bounds and places", () => {
    expect(checkDecimal(0.29, UNIT_SALE_PRICE)).toEqual({ ok: true, value: "0.29" });
    expect(checkDecimal("100000.00", UNIT_SALE_PRICE)).toEqual({ ok: true, value: "100000" });
    expect(checkDecimal(100000.01, UNIT_SALE_PRICE).ok).toBe(false);
    expect(checkDecimal(1.005, UNIT_SALE_PRICE).ok).toBe(false);
    expect(checkDecimal(0.9999, COMMISSION_RATE)).toEqual({ ok: true, value: "0.9999" });
    expect(checkDecimal(0.99999, COMMISSION_RATE).ok).toBe(false);
    expect(checkDecimal(-0, COMMISSION_RATE)).toEqual({ ok: true, value: "0" });
    expect(checkDecimal(-0.0001, COMMISSION_RATE).ok).toBe(false);
  });

  it("estimatedPerRedemption rounds half-even to 4 places", () => {
    expect(estimatedPerRedemption("0.0125", "0.5")).toBe("0.0062");
    expect(estimatedPerRedemption("0.0375", "0.5")).toBe("0.0188");
    expect(estimatedPerRedemption("0.1234", "99.99")).toBe("12.3388");
    expect(estimatedPerRedemption("1", "100000")).toBe("100000");
  });

  it("calendar days are real", () => {
    expect(isCalendarDay("2024-02-29")).toBe(true);
    expect(isCalendarDay("2025-02-29")).toBe(false);
    expect(isCalendarDay("2025-1-01")).toBe(false);
  });
});

describe("CampaignCreateBody", () => {
  it("accepts a good body and canonicalizes decimals", () => {
    const r = CampaignCreateBody.parse({
      ...good,
      commission: { rate: "0.1000", estimatedUnitSalePrice: 2 },
    });
    expect(r.commission).toEqual({ rate: "0.1", estimatedUnitSalePrice: "2" });
  });
  it("reports field paths as sent", () => {
    const r = CampaignCreateBody.safeParse({
      ...good,
      dates: { from: "2026-02-01", through: "2026-01-01" },
      retailer: { emailDomain: "x.example" },
      commission: { rate: 2, estimatedUnitSalePrice: "1.234" },
      externalReference: "e".repeat(121),
    });
    expect(Object.keys(details(r)).sort()).toEqual(
      [
        "dates.through",
        "retailer.name",
        "commission.rate",
        "commission.estimatedUnitSalePrice",
        "externalReference",
      ].sort(),
    );
  });
});

describe("CampaignPatchBody", () => {
  it("null and absent mean keep (undefined), retailer null means clear", () => {
    const r = CampaignPatchBody.parse({ name: null, codeLimit: null, dates: { from: null }, retailer: null });
    expect(r.name).toBeUndefined();
    expect(r.codeLimit).toBeUndefined();
    expect(r.dates).toEqual({ from: undefined, through: undefined });
    expect(r.retailer).toBeNull();
    expect(CampaignPatchBody.parse({}).retailer).toBeUndefined();
  });
  it("refuses immutable fields and out-of-order dates", () => {
    expect(
      Object.keys(details(CampaignPatchBody.safeParse({ baseGs1: "x", externalReference: null }))),
    ).toEqual(["baseGs1", "externalReference"]);
    expect(
      Object.keys(
        details(CampaignPatchBody.safeParse({ dates: { from: "2026-02-02", through: "2026-02-01" } })),
      ),
    ).toEqual(["dates.through"]);
  });
});

describe("other bodies", () => {
  it("status", () => {
    expect(CampaignStatusBody.safeParse({ status: "paused" }).success).toBe(true);
    expect(Object.keys(details(CampaignStatusBody.safeParse({ status: "gone" })))).toEqual(["status"]);
  });
  it("link PATCH", () => {
    expect(LinkPatchBody.parse({ active: false })).toEqual({ active: false });
    expect(details(LinkPatchBody.safeParse({}))).toEqual({ active: ["is required"] });
    expect(details(LinkPatchBody.safeParse({ active: "no" }))).toEqual({ active: ["must be true or false"] });
  });
  it("assignment", () => {
    expect(AssignmentBody.parse({ scope: "roster" })).toEqual({ scope: "roster" });
    expect(AssignmentBody.parse({ externalIds: ["a"] })).toEqual({ scope: "selected", externalIds: ["a"] });
    expect(AssignmentBody.parse({ externalIds: ["a"], scope: "selected" })).toEqual({
      scope: "selected",
      externalIds: ["a"],
    });
    expect(AssignmentBody.safeParse({ externalIds: Array(10_000).fill("x") }).success).toBe(true);
    expect(AssignmentBody.safeParse({ externalIds: Array(10_001).fill("x") }).success).toBe(false);
  });
  it("short codes", () => {
    expect(normalizeShortCode("abcd2345")).toBe("ABCD-2345");
    expect(normalizeShortCode("ABCD 2345")).toBe("ABCD-2345");
    expect(normalizeShortCode("ab-cd-23-45")).toBe("ABCD-2345");
    expect(normalizeShortCode("ABC-2345")).toBeUndefined();
  });
});

describe("response schemas", () => {
  const campaign = {
    id: "c",
    externalReference: null,
    name: "n",
    status: "active",
    offer: { baseGs1: "1", title: null, brand: { id: "b", name: "B" } },
    dates: { from: "2026-01-01", through: "2026-01-02" },
    retailer: null,
    commission: { rate: 0.1, estimatedUnitSalePrice: 1, estimatedPerRedemption: 0.1 },
    codes: { limit: 1, issued: 0, redeemed: 0, testCodes: 0, remaining: 1 },
    allowedStatuses: ["paused", "ended"],
    canChangeRetailer: true,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
  };
  it("strict refuses unknown fields and enum values; loose keeps them", () => {
    expect(strictCampaigns.Campaign.safeParse(campaign).success).toBe(true);
    const future = {
      ...campaign,
      status: "archived",
      extra: 1,
      commission: { ...campaign.commission, rate: "0.1" },
    };
    expect(strictCampaigns.Campaign.safeParse(future).success).toBe(false);
    const loose = looseCampaigns.Campaign.parse(future) as Record<string, unknown>;
    expect(loose.extra).toBe(1);
    expect(loose.status).toBe("archived");
    const job = {
      id: "j",
      campaignId: "c",
      status: "paused_by_ops",
      scope: "roster",
      totalCount: 1,
      assignedCount: 0,
      failedCount: 0,
      lastError: null,
      unassignableExternalIds: [],
      createdAt: "2026-01-01T00:00:00Z",
      startedAt: null,
      completedAt: null,
    };
    expect(strictLinks.AssignmentJob.safeParse(job).success).toBe(false);
    expect(looseLinks.AssignmentJob.parse(job).status).toBe("paused_by_ops");
  });
});
