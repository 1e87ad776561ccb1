// Check stage: one record becomes a row to send, or a row rejected here with its reasons (the
// shared row rules of src/csv/roster.ts, and an externalId already seen on an earlier line).
import type { CsvRecord } from "../../../csv/read.js";
import { checkRosterRow } from "../../../csv/roster.js";
import type { ImportState, Rejected, SentRow } from "./state.js";

/** Cells kept with a sent row only for the rejects file. */
const NO_CELLS: string[] = [];

export type Checked = { ok: true; row: SentRow } | { ok: false; rejected: Rejected };

export function checkRecord(st: ImportState, rec: CsvRecord): Checked {
  const check = checkRosterRow(rec.cells, st.map, { clearEmpty: st.settings.clearEmpty });
  if (check.externalId !== "") {
    const firstSeen = st.seen.firstLineOrAdd(check.externalId, rec.line);
    if (firstSeen !== undefined) check.reasons.push(`externalId: also on line ${firstSeen}`);
  }
  if (check.reasons.length || !check.item) {
    return {
      ok: false,
      rejected: { line: rec.line, externalId: check.externalId, reasons: check.reasons, cells: rec.cells },
    };
  }
  return {
    ok: true,
    row: { line: rec.line, item: check.item, cells: st.out.sink ? rec.cells : NO_CELLS },
  };
}
