// Redemptions (spec: Redemption, Shared reference objects, Redemption counting state, Redemptions
// endpoints, Feeds, Limits) and the data of the traffic event types (code.issued,
// redemption.recorded, redemption.excluded, redemption.restored, campaign.supply_low,
// campaign.supply_exhausted). Shared by the CLI and the sandbox.
import { z } from "zod";
import { CalendarDay, type Kit, kit, Timestamp } from "./kit.js";
import { RANGE_PRESETS } from "./ranges.js";

export const COUNTING_STATES = ["counted", "excluded", "test_code"] as const;
export type CountingState = (typeof COUNTING_STATES)[number];

/** Query parameters that select range mode of GET /redemptions. */
export const RANGE_MODE_PARAMS = [
  "preset",
  "from",
  "through",
  "brandId",
  "campaignId",
  "countingState",
  "page",
  "pageSize",
  "asOf",
] as const;
/** Query parameters of feed mode of GET /redemptions. */
export const FEED_MODE_PARAMS = ["after", "limit"] as const;

function referenceSchemas(k: Kit) {
  const CampaignReference = k.obj({
    id: z.string(),
    externalReference: z.string().nullable(),
    name: z.string(),
  });
  const CreatorReference = k.obj({ externalId: z.string(), name: z.string() });
  const OfferReference = k.obj({ baseGs1: z.string(), title: z.string().nullable() });
  const BrandReference = k.obj({ id: z.string(), name: z.string() });
  const RetailerReference = k.obj({ emailDomain: z.string(), name: z.string().nullable() });
  const Exclusion = k.obj({ excludedAt: Timestamp, reason: z.string().nullable() });
  const SupplyCodes = k.obj({
    limit: z.number().int(),
    issued: z.number().int(),
    remaining: z.number().int(),
  });
  return {
    CampaignReference,
    CreatorReference,
    OfferReference,
    BrandReference,
    RetailerReference,
    Exclusion,
    SupplyCodes,
  };
}

export function redemptionSchemas(k: Kit) {
  const r = referenceSchemas(k);
  const Redemption = k.obj({
    id: z.string(),
    serializedGs1: z.string(),
    redeemedAt: Timestamp,
    recordedAt: Timestamp,
    campaign: r.CampaignReference,
    offer: r.OfferReference,
    brand: r.BrandReference,
    creator: r.CreatorReference.nullable(),
    retailer: r.RetailerReference.nullable(),
    countingState: k.en(COUNTING_STATES),
    exclusion: r.Exclusion.nullable(),
  });
  const RedemptionFeedPage = k.obj({ items: z.array(Redemption), nextCursor: z.string().nullable() });
  const RedemptionRange = k.obj({
    from: CalendarDay,
    through: CalendarDay,
    timeZone: z.string(),
    preset: k.en([...RANGE_PRESETS, "custom"] as const),
  });
  const RedemptionRangePage = k.obj({
    range: RedemptionRange,
    asOf: Timestamp,
    items: z.array(Redemption),
    page: z.number().int(),
    pageSize: z.number().int(),
    totalCount: z.number().int(),
  });

  // Event data by type (spec: Events, Data by type).
  const RedemptionRecordedData = Redemption;
  const RedemptionExcludedData = k.obj({
    redemptionId: z.string(),
    campaign: r.CampaignReference,
    creator: r.CreatorReference.nullable(),
    excludedAt: Timestamp,
    reason: z.string(),
  });
  const RedemptionRestoredData = k.obj({
    redemptionId: z.string(),
    campaign: r.CampaignReference,
    creator: r.CreatorReference.nullable(),
    restoredAt: Timestamp,
    reason: z.string(),
  });
  const CodeIssuedData = k.obj({
    claimId: z.string(),
    campaign: r.CampaignReference,
    creator: r.CreatorReference,
    issuedAt: Timestamp,
  });
  const SupplyData = k.obj({ campaign: r.CampaignReference, codes: r.SupplyCodes });
  return {
    ...r,
    Redemption,
    RedemptionFeedPage,
    RedemptionRange,
    RedemptionRangePage,
    RedemptionRecordedData,
    RedemptionExcludedData,
    RedemptionRestoredData,
    CodeIssuedData,
    SupplyData,
  };
}
export const strictRedemptions = redemptionSchemas(kit("strict"));
export const looseRedemptions = redemptionSchemas(kit("loose"));
export type Redemption = z.infer<typeof strictRedemptions.Redemption>;
export type RedemptionFeedPage = z.infer<typeof strictRedemptions.RedemptionFeedPage>;
export type RedemptionRangePage = z.infer<typeof strictRedemptions.RedemptionRangePage>;
export type CampaignReference = z.infer<typeof strictRedemptions.CampaignReference>;
export type CreatorReference = z.infer<typeof strictRedemptions.CreatorReference>;
export type BrandReference = z.infer<typeof strictRedemptions.BrandReference>;
export type OfferReference = z.infer<typeof strictRedemptions.OfferReference>;
export type RetailerReference = z.infer<typeof strictRedemptions.RetailerReference>;
export type Exclusion = z.infer<typeof strictRedemptions.Exclusion>;
export type SupplyCodes = z.infer<typeof strictRedemptions.SupplyCodes>;
export type RedemptionExcludedData = z.infer<typeof strictRedemptions.RedemptionExcludedData>;
export type RedemptionRestoredData = z.infer<typeof strictRedemptions.RedemptionRestoredData>;
export type CodeIssuedData = z.infer<typeof strictRedemptions.CodeIssuedData>;
export type SupplyData = z.infer<typeof strictRedemptions.SupplyData>;
