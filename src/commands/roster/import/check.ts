// Check stage: one record becomes a row of the next batch, or a row rejected here with its reasons
// (the shared row rules of src/csv/roster.ts, and an externalId already seen on an earlier line, or
// the same after Unicode NFC normalization). A plain row that passes goes straight into the batch's
// JSON text (rosterRowJson); any other row is checked by checkRosterRow, which gives the exact
// reasons. An accepted id that is not in NFC is sent as it is, with a warning.
import type { CsvRecord } from "../../../csv/read.js";
import {
  checkRosterRow,
  nfcProblem,
  notNfc,
  ROSTER_FIELDS,
  rosterRowJson,
  showId,
} from "../../../csv/roster.js";
import { STDERR_WARNING_CAP } from "./report.js";
import type { ImportState, Rejected } from "./state.js";

/**
 * The reasons a workbook row cannot be used: a cell of a mapped column holds an error (#N/A) or a
 * formula with no saved result ("email: Sheet1!C7 holds the error #N/A"). Other columns do not matter.
 */
function badCellReasons(st: ImportState, rec: CsvRecord): string[] {
  const reasons: string[] = [];
  for (const f of ROSTER_FIELDS) {
    const col = st.map.index[f];
    const bad = col === undefined ? undefined : rec.bad?.find((b) => b.col === col);
    if (bad) reasons.push(`${f}: ${st.places.field(rec.line, bad.col)} ${bad.why}`);
  }
  return reasons;
}

/** Adds a record that passes to `st.batch` (undefined), or returns it rejected with its reasons. */
export function checkRecord(st: ImportState, rec: CsvRecord): Rejected | undefined {
  if (rec.bad) {
    const reasons = badCellReasons(st, rec);
    const id = st.map.index.externalId;
    const externalId =
      id === undefined || rec.bad.some((b) => b.col === id) ? "" : (rec.cells[id] ?? "").trim();
    if (reasons.length) return { line: rec.line, externalId, reasons, cells: rec.cells };
  }
  const batch = st.batch;
  const json = batch.json;
  const mark = json.length;
  const comma = batch.length > 0; // the parts before `mark` may have been written out already
  const fast = rosterRowJson(rec.cells, st.map, st.settings.clearEmpty, json, comma);
  const check =
    fast === undefined
      ? checkRosterRow(rec.cells, st.map, {
          clearEmpty: st.settings.clearEmpty,
          // a workbook names the cell past the header ("Sheet1!G7"); CSV says "field 7"
          field: st.places.sheet === undefined ? undefined : (col) => st.places.field(rec.line, col),
        })
      : undefined;
  // With an item, check.externalId is the item's (trimmed) externalId.
  const externalId = fast ?? check!.externalId;
  // Ids are compared in NFC: two spellings of one text are one id to the people reading them.
  const nfc = externalId !== "" ? notNfc(externalId) : undefined;
  const key = nfc ? nfc.nfc : externalId;
  const firstSeen = externalId !== "" ? st.seen.firstLineOrAdd(key, rec.line) : undefined;
  if (nfc && firstSeen === undefined) st.notNfcFirst.set(key, externalId);
  if (firstSeen !== undefined || (check && (check.reasons.length || !check.item))) {
    json.length = mark;
    const reasons = check?.reasons ?? [];
    if (firstSeen !== undefined) reasons.push(repeatReason(st, key, externalId, firstSeen));
    return { line: rec.line, externalId, reasons, cells: rec.cells };
  }
  if (nfc) warnNotNfc(st, st.places.field(rec.line, st.map.index.externalId!), externalId, nfc.cp);
  if (check?.item) json.push(comma ? `,${JSON.stringify(check.item)}` : JSON.stringify(check.item));
  batch.lines.push(rec.line);
  batch.ids.push(externalId);
  if (st.out.sink) batch.cells.push(rec.cells);
  batch.spillSometimes();
  return undefined;
}

/** "externalId: also on line 2" (or "on Sheet1!A2"), saying so when the two are spelled apart but equal in Unicode NFC. */
function repeatReason(st: ImportState, key: string, externalId: string, line: number): string {
  const first = st.notNfcFirst.get(key) ?? key;
  const at = st.places.field(line, st.map.index.externalId!);
  return first === externalId
    ? `externalId: also on ${at}`
    : `externalId: also on ${at}, spelled ${showId(first)} there and ${showId(externalId)} here: the same text in Unicode NFC`;
}

function warnNotNfc(st: ImportState, at: string, externalId: string, cp: number): void {
  const out = st.out;
  out.warned++;
  if (out.warnings.length < STDERR_WARNING_CAP)
    out.warnings.push(
      `${at}: externalId ${showId(externalId)} ${nfcProblem(cp)}; sent as it is (the service compares ids exactly).`,
    );
}
