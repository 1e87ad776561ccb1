// Shared bits of the report views: the range line and ratio/decimal display.
import { UsageError } from "../../errors.js";
import type { Io } from "../../io/io.js";
import { type Column, printRecord, type RecordField, renderTsv } from "../../io/render.js";
import type { ReportRange } from "../../spec/reports.js";

export function rangeLine(r: ReportRange): string {
  return `${r.from} through ${r.through} (${r.timeZone}${r.preset === "custom" ? "" : `, ${r.preset}`})`;
}

/**
 * A report's totals: "field  value" lines on a terminal; piped (TSV) a one-row table like every
 * other section, so that each section is one table; CSV one row; JSON the object.
 */
export function printTotals(io: Io, value: unknown, fields: readonly RecordField[]): void {
  if (io.format !== "tsv" || io.json) {
    printRecord(io, value, fields);
    return;
  }
  const one: Column<null>[] = fields.map(([header, v]) => ({ header, value: () => v }));
  io.out(renderTsv([null], one));
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
