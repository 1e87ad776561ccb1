// Read stage: the input's records, in blocks, after its header has been matched to the roster
// fields. An import reads its input twice: first a check of the whole file (readable text, valid
// CSV, an externalId column; its rows counted) before anything is sent, then the records themselves.
import type { CsvRecord } from "../../../csv/read.js";
import type { InputFile } from "../../../csv/input.js";
import { CsvFileError, type CsvReadOptions, CsvReader } from "../../../csv/read.js";
import { type ColumnMap, mapColumns, type parseColumnFlags } from "../../../csv/roster.js";
import { CancelledError } from "../../../errors.js";
import { plural } from "./state.js";

export type ColumnFlags = ReturnType<typeof parseColumnFlags>;

/** One reading pass over the input: its records after the header, in blocks. */
export interface RosterSource {
  blocks: AsyncGenerator<CsvRecord[]>;
  map: ColumnMap;
  reader: CsvReader;
  /** Stops reading (releases the pass). */
  close(): Promise<void>;
}

/**
 * Opens one reading pass: reads the header and maps the columns (`withCells: "count"`: records
 * checked and counted only, see CsvReader.blocks).
 */
export async function openRoster(
  input: InputFile,
  read: CsvReadOptions,
  flags: ColumnFlags,
  withCells: true | "count" = true,
): Promise<RosterSource> {
  const reader = new CsvReader(read);
  const blocks = reader.blocks(input.bytes(), { cells: withCells });
  const close = async () => {
    await blocks.return(undefined);
  };
  try {
    const first = await blocks.next();
    if (first.done) {
      throw new CsvFileError(
        `${input.name} is empty: it needs a header row naming the columns (externalId,name,email,handle,active).`,
      );
    }
    const map = mapColumns(input.name, first.value[0]!.cells, flags, { delimiter: reader.facts.delimiter });
    return { blocks, map, reader, close };
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
  read: CsvReadOptions,
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
          `Interrupted while checking ${input.name} (${plural(total + src.reader.counted, "row")} read): nothing was sent.`,
        );
      }
      total += block.length;
    }
    total += src.reader.counted;
  } catch (err) {
    if (err instanceof CsvFileError) throw err.withNote("Nothing was sent.");
    throw err;
  }
  return total;
}

/** "Reading stdin as UTF-16LE (byte order mark), tab-delimited." when either is not the plain default. */
export function readingNote(name: string, reader: CsvReader): string | undefined {
  const f = reader.facts;
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
