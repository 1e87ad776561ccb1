// How a redemption becomes an export row: CSV columns (identifiers as text) or one NDJSON line.
import { type Cell, formatCsv } from "../csv/write.js";
import type { Redemption } from "../spec/redemptions.js";

/** A correction notice that produced a change row. */
export interface Change {
  type: string;
  eventId: string;
  occurredAt: string;
}

export const REDEMPTION_COLUMNS = [
  "id",
  "serializedGs1",
  "redeemedAt",
  "recordedAt",
  "countingState",
  "excludedAt",
  "exclusionReason",
  "campaignId",
  "campaignExternalReference",
  "campaignName",
  "baseGs1",
  "offerTitle",
  "brandId",
  "brandName",
  "creatorExternalId",
  "creatorName",
  "retailerEmailDomain",
  "retailerName",
  "change",
  "changeEventId",
  "changedAt",
] as const;

function cells(r: Redemption, change?: Change): Cell[] {
  return [
    r.id,
    r.serializedGs1,
    r.redeemedAt,
    r.recordedAt,
    r.countingState,
    r.exclusion?.excludedAt,
    r.exclusion?.reason,
    r.campaign.id,
    r.campaign.externalReference,
    r.campaign.name,
    r.offer.baseGs1,
    r.offer.title,
    r.brand.id,
    r.brand.name,
    r.creator?.externalId,
    r.creator?.name,
    r.retailer?.emailDomain,
    r.retailer?.name,
    change ? change.type.replace(/^redemption\./, "") : "",
    change?.eventId,
    change?.occurredAt,
  ];
}

export type ExportFormat = "csv" | "ndjson";

export function csvHeader(): string {
  return formatCsv([], REDEMPTION_COLUMNS);
}

/** Renders rows in the chosen format (no CSV header). */
export function renderRows(
  format: ExportFormat,
  rows: { redemption: Redemption; change?: Change | undefined }[],
): string {
  if (rows.length === 0) return "";
  if (format === "csv") return formatCsv(rows.map((r) => cells(r.redemption, r.change)));
  let out = "";
  for (const r of rows)
    out += `${JSON.stringify(r.change ? { ...r.redemption, change: r.change } : r.redemption)}\n`;
  return out;
}
