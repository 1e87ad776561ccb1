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

// ---- the CSV fast path ----
// One row of the redemption columns rendered by string concatenation instead of a generic CSV
// writer per cell. The output is byte-identical to formatCsv(redemptionCells(...)) (csv-stringify with the
// export rules of src/csv/write.ts; test/export/redemption-rows.test.ts renders many random and edge
// redemptions both ways):
// - null, undefined and "" are empty cells;
// - a text cell starting with a formula character (= + - @ TAB CR and their full-width forms) gets
//   a leading apostrophe (csv-stringify's escape_formulas), and so does one that starts with
//   apostrophes followed by such a character (formatCsv's own rule, so the escape can be undone);
// - a cell holding a double quote, a comma, CR or LF is quoted, its double quotes doubled;
// - any other kind of value (a number, an object: never in a redemption the client accepted) goes
//   through formatCsv itself.

/** formatCsv's rule: apostrophes before a formula character get one more apostrophe. */
const PRE_ESCAPED = /^'+[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Whether a text cell starting with this UTF-16 code unit is escaped as a formula. */
function formulaStart(c: number): boolean {
  switch (c) {
    case 0x3d: // =
    case 0x2b: // +
    case 0x2d: // -
    case 0x40: // @
    case 0x09: // TAB
    case 0x0d: // CR
    case 0xff1d:
    case 0xff0b:
    case 0xff0d:
    case 0xff20:
      return true;
    default:
      return false;
  }
}

function textCell(s: string): string {
  if (s.length === 0) return s;
  const c = s.charCodeAt(0);
  const escaped = formulaStart(c) || (c === 0x27 && PRE_ESCAPED.test(s)) ? `'${s}` : s;
  return NEEDS_QUOTES.test(s) ? `"${escaped.replaceAll('"', '""')}"` : escaped;
}

function cell(v: Cell): string {
  if (typeof v === "string") return textCell(v);
  if (v === null || v === undefined) return "";
  return formatCsv([[v]]).slice(0, -1);
}

/** One CSV row (with its line end) of a redemption: exactly formatCsv([redemptionCells(r, change)]). */
export function csvRow(r: Redemption, change?: Change): string {
  const ex = r.exclusion;
  const creator = r.creator;
  const retailer = r.retailer;
  return (
    cell(r.id) +
    "," +
    cell(r.serializedGs1) +
    "," +
    cell(r.redeemedAt) +
    "," +
    cell(r.recordedAt) +
    "," +
    cell(r.countingState) +
    "," +
    cell(ex?.excludedAt) +
    "," +
    cell(ex?.reason) +
    "," +
    cell(r.campaign.id) +
    "," +
    cell(r.campaign.externalReference) +
    "," +
    cell(r.campaign.name) +
    "," +
    cell(r.offer.baseGs1) +
    "," +
    cell(r.offer.title) +
    "," +
    cell(r.brand.id) +
    "," +
    cell(r.brand.name) +
    "," +
    cell(creator?.externalId) +
    "," +
    cell(creator?.name) +
    "," +
    cell(retailer?.emailDomain) +
    "," +
    cell(retailer?.name) +
    "," +
    (change ? cell(change.type.replace(/^redemption\./, "")) : "") +
    "," +
    cell(change?.eventId) +
    "," +
    cell(change?.occurredAt) +
    "\n"
  );
}

export function csvHeader(): string {
  return formatCsv([], REDEMPTION_COLUMNS);
}

/** Renders rows in the chosen format (no CSV header). */
export function renderRows(
  format: ExportFormat,
  rows: { redemption: Redemption; change?: Change | undefined }[],
): string {
  if (rows.length === 0) return "";
  let out = "";
  if (format === "csv") {
    for (const r of rows) out += csvRow(r.redemption, r.change);
    return out;
  }
  for (const r of rows)
    out += `${JSON.stringify(r.change ? { ...r.redemption, change: r.change } : r.redemption)}\n`;
  return out;
}

/**
 * Buffers handed out again once given back: a page's rows are written into one, which is given back
 * after the page is written, so an export of any length reuses a few buffers instead of leaving a
 * dead one per page for the garbage collector (whose large external buffers can pile up for tens of
 * megabytes before a full collection frees them).
 */
export class BufferPool {
  private free: Buffer[] = [];
  constructor(private readonly keep = 6) {}

  /** A buffer of at least `size` bytes (its content is garbage). */
  take(size: number): Buffer {
    const i = this.free.findIndex((b) => b.length >= size);
    if (i >= 0) return this.free.splice(i, 1)[0]!;
    // Some room to grow, so pages a little longer than the last ones still fit.
    return Buffer.allocUnsafeSlow(Math.max(size + (size >> 3), 4096));
  }

  /** Gives `buf` back; it must not be used afterwards. */
  give(buf: Buffer): void {
    this.free.push(buf);
    if (this.free.length > this.keep) {
      this.free.sort((a, b) => b.length - a.length);
      this.free.length = this.keep;
    }
  }
}

/** Rows rendered into one buffer: row i is `buf` [i === 0 ? 0 : ends[i - 1], ends[i]). */
export interface RowBuffer {
  /** Holds the rows from 0 to the last end (it may be longer: a pooled buffer). */
  buf: Buffer;
  ends: number[];
}

/**
 * Renders each redemption as one row (no CSV header), as renderRows would, into one buffer (from
 * `pool` when given), with the byte offset where each row ends: a page can be kept as its rows'
 * bytes instead of its parsed objects.
 */
export function renderRowBuffer(
  format: ExportFormat,
  redemptions: readonly Redemption[],
  pool?: BufferPool,
): RowBuffer {
  const lines: string[] = new Array(redemptions.length);
  const ends: number[] = new Array(redemptions.length);
  let total = 0;
  for (let i = 0; i < redemptions.length; i++) {
    const r = redemptions[i]!;
    const line = format === "csv" ? csvRow(r) : `${JSON.stringify(r)}\n`;
    lines[i] = line;
    total += Buffer.byteLength(line, "utf8");
    ends[i] = total;
  }
  const buf = pool ? pool.take(total) : Buffer.allocUnsafe(total);
  let at = 0;
  for (const line of lines) at += buf.write(line, at, "utf8");
  return { buf, ends };
}
