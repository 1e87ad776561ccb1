// Shared bits of the report views: the range line and ratio/decimal display.
import type { ReportRange } from "../../spec/reports.js";

export function rangeLine(r: ReportRange): string {
  return `${r.from} through ${r.through} (${r.timeZone}${r.preset === "custom" ? "" : `, ${r.preset}`})`;
}

/** A ratio as a percentage with one decimal; null stays null (shown as "-"). */
export function pct(v: number | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return `${(Number(v) * 100).toFixed(1)}%`;
}
