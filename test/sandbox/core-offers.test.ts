// Offers: list with brandId and state filters, get by baseGs1, and the awkward cases of the seed.
import { beforeAll, describe, expect, it } from "vitest";
import { type Offer, OFFER_STATES, strictOffers } from "../../src/spec/offers.js";
import { expectError, strict } from "./core-util.js";
import { useSandbox } from "../helpers/harness.js";
import { SEED } from "../../src/sandbox/seed.js";

const s = useSandbox();
let all: Offer[];
beforeAll(async () => {
  all = strict(strictOffers.OfferPage, await s.http("GET", "/offers?pageSize=200")).items;
});

describe("GET /offers", () => {
  it("lists the organization's offers sorted by baseGs1", async () => {
    expect(all.length).toBe(8);
    const ids = all.map((o) => o.baseGs1);
    expect(ids).toEqual([...ids].sort());
  });
  it("has every offer state in the seed, canDistribute only for available", () => {
    expect(new Set(all.map((o) => o.state))).toEqual(new Set(OFFER_STATES));
    for (const o of all) expect(o.canDistribute).toBe(o.state === "available");
  });
  it("filters by state", async () => {
    for (const state of OFFER_STATES) {
      const page = strict(strictOffers.OfferPage, await s.http("GET", `/offers?state=${state}`));
      expect(page.items.length).toBeGreaterThan(0);
      expect(page.items.every((o) => o.state === state)).toBe(true);
      expect(page.totalCount).toBe(all.filter((o) => o.state === state).length);
    }
  });
  it("an unknown state is a 400 naming the known ones", async () => {
    const d = expectError(await s.http("GET", "/offers?state=open"), 400, "validation_failed", ["state"]);
    expect(d?.state?.[0]).toMatch(/available/);
  });
  it("filters by brandId (brand.id), and combines with state", async () => {
    const brands = new Map(all.map((o) => [o.brand.id, o.brand.name]));
    expect(brands.size).toBe(3);
    for (const [id] of brands) {
      const page = strict(strictOffers.OfferPage, await s.http("GET", `/offers?brandId=${id}`));
      expect(page.items.length).toBe(all.filter((o) => o.brand.id === id).length);
      expect(page.items.every((o) => o.brand.id === id)).toBe(true);
    }
    const oats = all.find((o) => o.brand.name === "Crunchy Oats Co.")!.brand.id;
    const both = strict(
      strictOffers.OfferPage,
      await s.http("GET", `/offers?brandId=${oats}&state=available`),
    );
    expect(both.items.map((o) => o.baseGs1)).toEqual([SEED.offers.oats, SEED.offers.oatsUnknownSupply]);
    const none = strict(strictOffers.OfferPage, await s.http("GET", "/offers?brandId=not-a-brand"));
    expect(none).toEqual({ items: [], page: 0, pageSize: 50, totalCount: 0 });
  });
});

describe("GET /offers/{baseGs1}", () => {
  it("returns the offer, equal to its list entry", async () => {
    for (const o of all) {
      expect(strict(strictOffers.Offer, await s.http("GET", `/offers/${o.baseGs1}`))).toEqual(o);
    }
  });
  it("baseGs1 is text: leading zeros matter", async () => {
    expectError(await s.http("GET", "/offers/12345000011"), 404, "not_found");
    expect(all.every((o) => typeof o.baseGs1 === "string" && o.baseGs1.startsWith("00"))).toBe(true);
  });
  it("unknown offers answer 404", async () => {
    expectError(await s.http("GET", "/offers/0000000000000"), 404, "not_found");
  });
});

describe("offer fields", () => {
  const find = (id: string) => all.find((o) => o.baseGs1 === id)!;
  it("savings is null when no shopper savings exist, else cents and display", () => {
    expect(find(SEED.offers.oatsUnknownSupply).savings).toBeNull();
    expect(find(SEED.offers.oats).savings).toEqual({ cents: 150, display: "$1.50 off" });
    expect(all.filter((o) => o.savings !== null).length).toBeGreaterThan(0);
  });
  it("product barcodes keep leading zeros as text; empty list when none", async () => {
    expect(find(SEED.offers.oatsUnknownSupply).productBarcodes).toEqual(["000000012345"]);
    expect(find(SEED.offers.sodaZero).productBarcodes).toEqual([]);
    const raw = await (
      await fetch(`${s.url}/api/partner/v1/offers/${SEED.offers.oatsUnknownSupply}`, {
        headers: { authorization: `Bearer ${s.writeKey}` },
      })
    ).text();
    expect(raw).toContain('"productBarcodes":["000000012345"]');
    expect(raw).toContain(`"baseGs1":"${SEED.offers.oatsUnknownSupply}"`);
  });
  it("retailerChoiceRequired and allowedRetailers", () => {
    expect(find(SEED.offers.sodaRetail)).toMatchObject({
      retailerChoiceRequired: true,
      allowedRetailers: ["freshmart.example", "cornerstore.example"],
    });
    expect(find(SEED.offers.sodaZero)).toMatchObject({
      retailerChoiceRequired: false,
      allowedRetailers: ["freshmart.example"],
    });
    expect(find(SEED.offers.oats)).toMatchObject({ retailerChoiceRequired: false, allowedRetailers: [] });
  });
  it("codesAvailable is null (unknown) or a number", () => {
    expect(find(SEED.offers.oatsUnknownSupply).codesAvailable).toBeNull();
    expect(find(SEED.offers.oats).codesAvailable).toBe(50_000);
    expect(find(SEED.offers.expired).codesAvailable).toBe(0);
  });
  it("title/description null when missing; dates null or inside redemption dates", () => {
    expect(find(SEED.offers.tempUnavailable).title).toBeNull();
    expect(find(SEED.offers.oatsUnknownSupply).description).toBeNull();
    const nd = find(SEED.offers.notDistributable);
    expect([nd.campaignDates, nd.redemptionDates]).toEqual([null, null]);
    for (const o of all) {
      if (o.campaignDates && o.redemptionDates) {
        expect(o.campaignDates.from >= o.redemptionDates.from).toBe(true);
        expect(o.campaignDates.through <= o.redemptionDates.through).toBe(true);
      }
    }
  });
  it("reading does not refresh lastUpdatedAt", async () => {
    const a = strict(strictOffers.Offer, await s.http("GET", `/offers/${SEED.offers.oats}`));
    await s.http("POST", "/advance", { control: true, body: { duration: "2h" } });
    const b = strict(strictOffers.Offer, await s.http("GET", `/offers/${SEED.offers.oats}`));
    expect(b.lastUpdatedAt).toBe(a.lastUpdatedAt);
  });
});
