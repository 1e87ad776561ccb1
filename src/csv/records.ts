// Opening an input file's records, whatever it is: CSV text (src/csv/read.ts) or an Excel workbook
// (src/csv/workbook.ts, loaded only for a workbook), told apart by the first bytes (src/csv/sniff.ts).
// Both hand out the header record, then blocks of { line, cells }, and say where a row is (Places).
import { UsageError } from "../errors.js";
import { LINES, type Places } from "./place.js";
import { type CsvReadOptions, CsvReader, type CsvRecord } from "./read.js";
import { sniff } from "./sniff.js";
import type { WorkbookRecords } from "./workbook.js";

export interface ReadOptions extends CsvReadOptions {
  /** `--sheet NAME|N`: which sheet of a workbook (refused for CSV). */
  sheet?: string | undefined;
}

/** An input's records, read once. */
export interface RecordSource {
  /** The header alone, then blocks of records (see CsvReader.blocks for `cells`). */
  blocks: AsyncGenerator<CsvRecord[]>;
  /** The CSV reader (its facts, its `counted`), or undefined for a workbook. */
  csv: CsvReader | undefined;
  /** The workbook reader, or undefined for CSV. */
  workbook: WorkbookRecords | undefined;
  /** Where a row or a cell is, for messages (complete once the header has been read). */
  places(): Places;
  /** Records only counted, not handed out (CsvReader's `counted`). */
  counted(): number;
}

/** Opens the records of an input's bytes: a workbook or CSV, by content. */
export async function openRecords(
  chunks: AsyncIterable<Uint8Array>,
  o: ReadOptions,
  cells: boolean | "count" = true,
): Promise<RecordSource> {
  const { kind, chunks: bytes } = await sniff(o.name, chunks);
  if (kind === "csv") {
    refuseSheet(o);
    const csv = new CsvReader(o);
    return {
      blocks: csv.blocks(bytes, { cells }),
      csv,
      workbook: undefined,
      places: () => LINES,
      counted: () => csv.counted,
    };
  }
  noteTextFlags(o);
  const { WorkbookRecords } = await import("./workbook.js");
  const wb = new WorkbookRecords({ name: o.name, sheet: o.sheet });
  return {
    blocks: wb.blocks(bytes),
    csv: undefined,
    workbook: wb,
    places: () => wb.places,
    counted: () => 0,
  };
}

/** `--sheet` given for CSV text: refused (the user may have the wrong file). */
export function refuseSheet(o: Pick<ReadOptions, "name" | "sheet">): void {
  if (o.sheet !== undefined)
    throw new UsageError(
      `--sheet "${o.sheet}": ${o.name} is CSV text, not an Excel workbook, so it has no sheets; nothing was sent.`,
      "Drop --sheet, or give the .xlsx workbook.",
    );
}

/**
 * --encoding, --delimiter and --quote say how to read text: a workbook holds no text to decode or
 * split, so they are noted as ignored (one command line can take either kind of file).
 */
export function noteTextFlags(
  o: Pick<ReadOptions, "name" | "encoding" | "delimiter" | "quote" | "note">,
): void {
  const ignored = [
    o.encoding ? "--encoding" : "",
    o.delimiter ? "--delimiter" : "",
    o.quote ? "--quote" : "",
  ].filter(Boolean);
  if (ignored.length)
    o.note?.(
      `${o.name} is an Excel workbook: ${ignored.join(" and ")} ${ignored.length > 1 ? "do" : "does"} not apply and ${ignored.length > 1 ? "are" : "is"} ignored.`,
    );
}
