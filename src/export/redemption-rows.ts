// How a redemption becomes an export row: CSV columns (identifiers as text), one NDJSON line, or
// workbook cells (identifiers as text, times as dates).
import { type Cell, formatCsv } from "../csv/write.js";
import { type Column, columns } from "../io/table-file.js";
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

/** The columns with their workbook kinds: ids and codes text, the four times dates. */
export const REDEMPTION_TABLE: readonly Column[] = columns([
  ["id", "text", 38],
  ["serializedGs1", "text", 30],
  ["redeemedAt", "timestamp"],
  ["recordedAt", "timestamp"],
  ["countingState", "text", 14],
  ["excludedAt", "timestamp"],
  ["exclusionReason", "text", 24],
  ["campaignId", "text", 38],
  ["campaignExternalReference", "text"],
  ["campaignName", "text", 24],
  ["baseGs1", "text", 16],
  ["offerTitle", "text", 24],
  ["brandId", "text", 38],
  ["brandName", "text", 20],
  ["creatorExternalId", "text"],
  ["creatorName", "text", 24],
  ["retailerEmailDomain", "text", 20],
  ["retailerName", "text", 20],
  ["change", "text", 10],
  ["changeEventId", "text", 38],
  ["changedAt", "timestamp"],
]);

/** One redemption (and its change, for a change row) as cells in REDEMPTION_COLUMNS order. */
export function redemptionCells(r: Redemption, change?: Change): Cell[] {
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
  if (format === "csv") return formatCsv(rows.map((r) => redemptionCells(r.redemption, r.change)));
  let out = "";
  for (const r of rows)
    out += `${JSON.stringify(r.change ? { ...r.redemption, change: r.change } : r.redemption)}\n`;
  return out;
}
