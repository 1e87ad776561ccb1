// Shared bits of the report views: the range line and ratio/decimal display.
import { UsageError } from "../../errors.js";
import type { Io } from "../../io/io.js";
import type { ReportRange } from "../../spec/reports.js";

export function rangeLine(r: ReportRange): string {
  return `${r.from} through ${r.through} (${r.timeZone}${r.preset === "custom" ? "" : `, ${r.preset}`})`;
}

/** A ratio as a percentage with one decimal; null stays null (shown as "-"). */
export function pct(v: number | string | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  return `${(Number(v) * 100).toFixed(1)}%`;
}

/**
 * Checks --section against the report's parts, before any request. CSV holds one table, so a
 * report in CSV needs a section (a whole report is a record, a chart and a table).
 */
export function checkSection<S extends string>(
  io: Pick<Io, "format" | "json">,
  section: string | undefined,
  sections: readonly S[],
): S | undefined {
  const list = sections.join(", ");
  if (section !== undefined && !(sections as readonly string[]).includes(section))
    throw new UsageError(`--section must be one of ${list}, not "${section}".`);
  if (section === undefined && io.format === "csv" && !io.json)
    throw new UsageError(
      "A CSV holds one table, and this report has several parts.",
      `Add --section (${list}), or use --format json for the whole report.`,
    );
  return section as S | undefined;
}
