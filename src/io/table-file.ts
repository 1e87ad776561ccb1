// Tabular outputs (exports and reports): CSV (the default, optionally with a UTF-8 BOM for Excel) or
// an xlsx workbook. The format is checked before any request, so a mistake costs nothing; the
// workbook writer (and exceljs with it) is loaded only when a workbook is asked for.
import { extname } from "node:path";
import type { Writable } from "node:stream";
import { type CsvSink, openCsvSink } from "../csv/write.js";
import { UsageError } from "../errors.js";
import type { Column } from "./columns.js";
import type { Io } from "./types.js";

export { type Column, type ColumnKind, columns } from "./columns.js";

/** A destination for rows: CSV (file or stdout) or a workbook file. */
export type TableSink = CsvSink;

export type TableFormat = "csv" | "xlsx";

export interface TableOutputFlags {
  out?: string | undefined;
  format?: string | undefined;
  bom?: boolean | undefined;
}

/**
 * The output format of an export, from --format, or from --out's name (".xlsx" means a workbook) when
 * --format is absent. Refuses, before any request: an unknown format, a workbook to stdout, a name
 * that says the other format (a CSV named .xlsx, which Excel refuses to open, or a workbook named
 * .csv), and --bom on anything but CSV. `allowed` lists the formats this command writes.
 */
export function chooseFormat<F extends string = TableFormat>(
  flags: TableOutputFlags,
  allowed: readonly F[] = ["csv", "xlsx"] as unknown as readonly F[],
): F {
  const out = flags.out === undefined || flags.out === "-" ? undefined : flags.out;
  const ext = out ? extname(out).toLowerCase() : "";
  const given = flags.format?.trim().toLowerCase();
  if (given !== undefined && !(allowed as readonly string[]).includes(given))
    throw new UsageError(`--format must be ${allowed.join(" or ")}, not "${flags.format}".`);
  const format = (given ?? (ext === ".xlsx" && allowed.includes("xlsx" as F) ? "xlsx" : "csv")) as F;
  if (format === "xlsx") {
    if (!out)
      throw new UsageError(
        "--format xlsx writes a workbook file, not stdout.",
        "Give the file with --out, for example --out export.xlsx.",
      );
    if (ext === ".csv")
      throw new UsageError(
        `--format xlsx with --out ${out}: a workbook named .csv would open in Excel as garbled text.`,
        `Name the file .xlsx, or drop --format xlsx to write CSV.`,
      );
  } else if (ext === ".xlsx") {
    throw new UsageError(
      `--format ${format} with --out ${out}: Excel refuses to open a ${format === "csv" ? "CSV" : format} file named .xlsx.`,
      "Drop --format (a .xlsx name writes a workbook), or name the file differently.",
    );
  }
  if (flags.bom && format !== "csv")
    throw new UsageError(
      `--bom is for CSV: it tells Excel the file is UTF-8. ${format === "xlsx" ? "A workbook" : "NDJSON"} needs none.`,
      "Drop --bom.",
    );
  return format;
}

export interface OpenTableOptions {
  /** The workbook's sheet name (continuation sheets are "NAME (2)", ...). */
  sheetName: string;
}

/**
 * Opens the destination chosen by `flags` (call {@link chooseFormat} first to refuse mistakes before
 * any request) and writes the header row. Files are written under a temporary name and renamed into
 * place on commit, created 0600 (an existing file keeps its mode).
 */
export async function openTableSink(
  flags: TableOutputFlags,
  cols: readonly Column[],
  stdout: Writable,
  o: OpenTableOptions,
): Promise<TableSink> {
  const format = chooseFormat(flags);
  const header = cols.map((c) => c.name);
  if (format === "csv") return openCsvSink(flags.out, header, stdout, { bom: flags.bom === true });
  const { openXlsxSink } = await import("./xlsx.js");
  return openXlsxSink(flags.out!, cols, { sheetName: o.sheetName });
}

/**
 * With --json and no file, the rows print on stdout as a JSON array of objects keyed by column
 * name (streamed page by page); --format and --bom, which are about files, are refused then.
 * Otherwise the format is chosen as {@link chooseFormat} does. Call before any request.
 */
export function chooseRowsOutput(flags: TableOutputFlags, io: Pick<Io, "json">): TableFormat | "json" {
  const toStdout = flags.out === undefined || flags.out === "-";
  if (!(io.json && toStdout)) return chooseFormat(flags);
  if (flags.format !== undefined || flags.bom)
    throw new UsageError(
      "--json prints the rows as JSON on stdout; --format and --bom are for files.",
      "Give --out FILE, or drop --format/--bom.",
    );
  return "json";
}

/** Opens what {@link chooseRowsOutput} chose: a JSON array on stdout, or {@link openTableSink}. */
export async function openRowsOutput(
  flags: TableOutputFlags,
  cols: readonly Column[],
  io: Pick<Io, "json" | "out" | "stdout">,
  o: OpenTableOptions,
): Promise<TableSink> {
  if (chooseRowsOutput(flags, io) !== "json") return openTableSink(flags, cols, io.stdout, o);
  let count = 0;
  io.out("[");
  return {
    path: null,
    async write(rows) {
      for (const r of rows) {
        const obj = Object.fromEntries(cols.map((c, i) => [c.name, r[i] ?? null]));
        io.out(`${count++ === 0 ? "" : ","}${JSON.stringify(obj)}`);
      }
    },
    async commit() {
      io.out("]\n");
    },
    async abort() {},
  };
}
