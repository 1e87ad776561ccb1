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
  let externalId: string;
  if (fast !== undefined) {
    externalId = fast;
    const firstSeen = st.seen.firstLineOrAdd(fast, rec.line);
    if (firstSeen !== undefined) {
      json.length = mark;
      return {
        line: rec.line,
        externalId,
        reasons: [`externalId: also on line ${firstSeen}`],
        cells: rec.cells,
      };
    }
  } else {
    const check = checkRosterRow(rec.cells, st.map, { clearEmpty: st.settings.clearEmpty });
    if (check.externalId !== "") {
      const firstSeen = st.seen.firstLineOrAdd(check.externalId, rec.line);
      if (firstSeen !== undefined) check.reasons.push(`externalId: also on line ${firstSeen}`);
    }
    if (check.reasons.length || !check.item) {
      json.length = mark;
      return { line: rec.line, externalId: check.externalId, reasons: check.reasons, cells: rec.cells };
    }
    externalId = check.item.externalId;
    json.push(comma ? `,${JSON.stringify(check.item)}` : JSON.stringify(check.item));
  }
  batch.lines.push(rec.line);
  batch.ids.push(externalId);
  if (st.out.sink) batch.cells.push(rec.cells);
  batch.spillSometimes();
  return undefined;
}
