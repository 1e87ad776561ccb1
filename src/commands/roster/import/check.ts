// Check stage: one record becomes a row of the next batch, or a row rejected here with its reasons
// (the shared row rules of src/csv/roster.ts, and an externalId already seen on an earlier line). A
// plain row that passes goes straight into the batch's JSON text (rosterRowJson); any other row is
// checked by checkRosterRow, which gives the exact reasons.
import type { CsvRecord } from "../../../csv/read.js";
import { checkRosterRow, rosterRowJson } from "../../../csv/roster.js";
import type { ImportState, Rejected } from "./state.js";

/** Adds a record that passes to `st.batch` (undefined), or returns it rejected with its reasons. */
export function checkRecord(st: ImportState, rec: CsvRecord): Rejected | undefined {
  const batch = st.batch;
  const json = batch.json;
  const mark = json.length;
  const comma = batch.length > 0; // the parts before `mark` may have been written out already
  const fast = rosterRowJson(rec.cells, st.map, st.settings.clearEmpty, json, comma);
  const check =
    fast === undefined
      ? checkRosterRow(rec.cells, st.map, { clearEmpty: st.settings.clearEmpty })
      : undefined;
  // With an item, check.externalId is the item's (trimmed) externalId.
  const externalId = fast ?? check!.externalId;
  const firstSeen = externalId !== "" ? st.seen.firstLineOrAdd(externalId, rec.line) : undefined;
  if (firstSeen !== undefined || (check && (check.reasons.length || !check.item))) {
    json.length = mark;
    const reasons = check?.reasons ?? [];
    if (firstSeen !== undefined) reasons.push(`externalId: also on line ${firstSeen}`);
    return { line: rec.line, externalId, reasons, cells: rec.cells };
  }
  if (check?.item) json.push(comma ? `,${JSON.stringify(check.item)}` : JSON.stringify(check.item));
  batch.lines.push(rec.line);
  batch.ids.push(externalId);
  if (st.out.sink) batch.cells.push(rec.cells);
  batch.spillSometimes();
  return undefined;
}
