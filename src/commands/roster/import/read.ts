// Read stage: the input's records, in blocks, after its header has been matched to the roster
// fields. An import reads its input twice: first a check of the whole file (readable text, valid
// CSV or a readable workbook, an externalId column; its rows counted) before anything is sent, then
// the records themselves. The input is CSV or an Excel workbook (src/csv/records.ts).
import type { CsvRecord } from "../../../csv/read.js";
import type { InputFile } from "../../../csv/input.js";
import type { Places } from "../../../csv/place.js";
import { CsvFileError } from "../../../csv/read.js";
import { openRecords, type ReadOptions, type RecordSource } from "../../../csv/records.js";
import { type ColumnMap, mapColumns, type parseColumnFlags } from "../../../csv/roster.js";
import { CancelledError } from "../../../errors.js";
import { plural } from "./state.js";

export type ColumnFlags = ReturnType<typeof parseColumnFlags>;

/** One reading pass over the input: its records after the header, in blocks. */
export interface RosterSource {
  blocks: AsyncGenerator<CsvRecord[]>;
  map: ColumnMap;
  /** The reader: its facts (CSV), its sheet (workbook), what it counted. */
  records: RecordSource;
  /** Where rows and cells are, for messages ("line 7", "Sheet1!C7"). */
  places: Places;
  /** Stops reading (releases the pass). */
  close(): Promise<void>;
}

/**
 * Opens one reading pass: reads the header and maps the columns (`withCells: "count"`: records
 * checked and counted only, see CsvReader.blocks).
 */
export async function openRoster(
  input: InputFile,
  read: ReadOptions,
  flags: ColumnFlags,
  withCells: true | "count" = true,
): Promise<RosterSource> {
  const records = await openRecords(input.bytes(), read, withCells);
  const blocks = records.blocks;
  const close = async () => {
    await blocks.return(undefined);
  };
  try {
    const first = await blocks.next();
    if (first.done) {
      const sheet = records.workbook?.sheet;
      throw new CsvFileError(
        `${sheet ? `Sheet "${sheet.name}" of ${input.name}` : input.name} is empty: it needs a header row naming the columns (externalId,name,email,handle,active).`,
      );
    }
    const map = mapColumns(input.name, first.value[0]!.cells, flags, {
      delimiter: records.csv?.facts.delimiter,
    });
    return { blocks, map, records, places: records.places(), close };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * The first pass (not for --dry-run, which sends nothing): proves the whole input is readable text
 * and CSV with an externalId column before any request, and counts its rows for the progress bar.
 */
export async function checkWholeInput(
  input: InputFile,
  read: ReadOptions,
  flags: ColumnFlags,
  signal: AbortSignal,
): Promise<number> {
  let total = 0;
  try {
    const src = await openRoster(input, read, flags, "count");
    for await (const block of src.blocks) {
      if (signal.aborted) {
        await src.close();
        throw new CancelledError(
          `Interrupted while checking ${input.name} (${plural(total + src.records.counted(), "row")} read): nothing was sent.`,
        );
      }
      total += block.length;
    }
    total += src.records.counted();
  } catch (err) {
    if (err instanceof CsvFileError) throw err.withNote("Nothing was sent.");
    throw err;
  }
  return total;
}

/**
 * "Reading stdin as UTF-16LE (byte order mark), tab-delimited." when either is not the plain default;
 * for a workbook, 'Reading roster.xlsx, sheet "Creators" (1 of 3).'
 */
export function readingNote(name: string, records: RecordSource): string | undefined {
  const sheet = records.workbook?.sheet;
  if (sheet) return `Reading ${name}, sheet "${sheet.name}" (${sheet.position} of ${sheet.count}).`;
  if (!records.csv) return undefined;
  const f = records.csv.facts;
  if (f.encoding === "utf-8" && f.delimiter === ",") return undefined;
  const enc =
    f.source === "bom"
      ? `${f.encoding.toUpperCase()} (byte order mark)`
      : f.source === "flag"
        ? `${f.encoding} (--encoding)`
        : "UTF-8";
  const delim = f.delimiter === "\t" ? "tab" : `"${f.delimiter}"`;
  const why =
    f.delimiterSource === "flag" ? " (--delimiter)" : f.delimiterSource === "sep" ? " (its sep= line)" : "";
  return `Reading ${name} as ${enc}, fields separated by ${delim}${why}.`;
}
