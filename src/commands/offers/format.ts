// How offers look in tables, TSV and records. Identifiers stay strings (leading zeros kept).
import type { Column } from "../../io/render.js";
import { stateStyle } from "../../io/table.js";
import { OFFER_STATES, type Offer } from "../../spec/offers.js";

export const KNOWN_OFFER_STATES: readonly string[] = OFFER_STATES;

type Span = { from: string; through: string } | null | undefined;

function spanText(s: Span): string | null {
  return s ? `${s.from}..${s.through}` : null;
}

/**
 * The retailer rule in a few words: "required: a, b" (every campaign must name one of these),
 * "optional: a, b" (a campaign may restrict to one), or "none" (no restriction may be selected).
 */
export function retailerRule(o: Pick<Offer, "retailerChoiceRequired" | "allowedRetailers">): string {
  const list = (o.allowedRetailers ?? []).join(", ");
  if (o.retailerChoiceRequired) return `required: ${list || "(no retailer listed)"}`;
  return list ? `optional: ${list}` : "none";
}

export const offerColumns: Column<Offer>[] = [
  { header: "baseGs1", value: (o) => String(o.baseGs1) },
  { header: "brand", value: (o) => o.brand?.name, drop: 5, truncate: true },
  { header: "title", value: (o) => o.title, truncate: true },
  { header: "state", value: (o) => o.state, color: stateStyle },
  { header: "distributable", value: (o) => o.canDistribute, drop: 1 },
  { header: "savings", value: (o) => o.savings?.display ?? null },
  { header: "redemptionDates", value: (o) => spanText(o.redemptionDates), drop: 4 },
  { header: "codesAvailable", value: (o) => o.codesAvailable, drop: 3 },
  { header: "retailerRule", value: (o) => retailerRule(o), drop: 2, truncate: true },
];

/** Every field of one offer, for `offers get`. */
export function offerFields(o: Offer): [string, unknown][] {
  return [
    ["baseGs1", String(o.baseGs1)],
    ["title", o.title],
    ["description", o.description],
    ["brand", o.brand?.name],
    ["brandId", o.brand?.id],
    ["state", o.state],
    ["canDistribute", o.canDistribute],
    ["savings", o.savings ? `${o.savings.display} (${o.savings.cents} cents)` : null],
    ["productBarcodes", o.productBarcodes?.length ? o.productBarcodes.map(String).join(", ") : null],
    ["campaignDates", spanText(o.campaignDates)],
    ["redemptionDates", spanText(o.redemptionDates)],
    ["codesAvailable", o.codesAvailable],
    ["retailerChoiceRequired", o.retailerChoiceRequired],
    ["allowedRetailers", o.allowedRetailers?.length ? o.allowedRetailers.join(", ") : null],
    ["retailerRule", retailerRule(o)],
    ["lastUpdatedAt", o.lastUpdatedAt],
  ];
}
