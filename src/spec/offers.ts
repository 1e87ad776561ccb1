import { z } from "zod";
import { CalendarDay, type Kit, kit, pageOf, Timestamp } from "./kit.js";
import { OFFER_STATES } from "./offer-states.js";

export { OFFER_STATES };

function offerSchemas(k: Kit) {
  const Brand = k.obj({ id: z.string(), name: z.string() });
  const DateSpan = k.obj({ from: CalendarDay, through: CalendarDay });
  const Offer = k.obj({
    baseGs1: z.string(),
    brand: Brand,
    title: z.string().nullable(),
    description: z.string().nullable(),
    state: k.en(OFFER_STATES),
    canDistribute: z.boolean(),
    savings: k.obj({ cents: z.number().int(), display: z.string() }).nullable(),
    productBarcodes: z.array(z.string()),
    campaignDates: DateSpan.nullable(),
    redemptionDates: DateSpan.nullable(),
    codesAvailable: z.number().int().nullable(),
    retailerChoiceRequired: z.boolean(),
    allowedRetailers: z.array(z.string()),
    lastUpdatedAt: Timestamp,
  });
  return { Brand, DateSpan, Offer, OfferPage: pageOf(k, Offer) };
}
export const strictOffers = offerSchemas(kit("strict"));
export const looseOffers = offerSchemas(kit("loose"));
export type Offer = z.infer<typeof strictOffers.Offer>;
export type OfferState = (typeof OFFER_STATES)[number];
