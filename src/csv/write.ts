// CSV output for exports and rejects files: a header row, identifiers as text, formula-like cells
// escaped (csv-stringify's escape_formulas plus one rule of our own so the escape can be undone), CR
// and LF inside cells quoted, optionally a UTF-8 BOM first (so Excel reads the file as UTF-8). A file
// target is written to a temporary file beside it, created 0600 whatever the umask (or with the mode
// of the file it replaces), fsynced and renamed into place on commit, so an interrupted run never
// leaves a half-written file under the real name.
import { open, stat } from "node:fs/promises";
import type { Writable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import { UsageError } from "../errors.js";
import { fileWriteError, openTempOutput, type TempOutput } from "../io/private-file.js";

/** The UTF-8 byte order mark: Excel on Windows reads a CSV as UTF-8 only when it starts with it. */
export const UTF8_BOM = "\uFEFF";

/** First characters a spreadsheet treats as the start of a formula (as csv-stringify's escape_formulas). */
const FORMULA_START = "=+\\-@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20";
const ESCAPED_RE = new RegExp(`^'+[${FORMULA_START}]`);

/**
 * A cell that already starts with apostrophes before a formula character gets one more, so that
 * {@link unescapeFormulaCell} (which removes exactly one) gives back the original text.
 * escape_formulas handles the plain case ("=1+1" → "'=1+1").
 */
function preEscape(value: string): string {
  return ESCAPED_RE.test(value) ? `'${value}` : value;
}

/** Undoes the export escape: "'@maria" → "@maria", "''=x" → "'=x"; anything else is returned as is. */
export function unescapeFormulaCell(value: string): string {
  // Only a cell starting with ' can be an escaped one (the test runs once per cell of an import).
  return value.charCodeAt(0) === 0x27 && ESCAPED_RE.test(value) ? value.slice(1) : value;
}

export type Cell = string | number | boolean | null | undefined | bigint | object;

function cellValue(v: Cell): string | number | bigint {
  if (v === null || v === undefined) return "";
  if (typeof v === "boolean") return v ? "true" : "false";
  // Numbers stay numbers so a negative amount is not taken for a formula; everything else is text.
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (typeof v === "object") return preEscape(JSON.stringify(v));
  return preEscape(v);
}

/** Formats rows (and the header row, when given) as CSV text with the export rules. */
export function formatCsv(rows: readonly (readonly Cell[])[], header?: readonly string[]): string {
  const records: (string | number | bigint)[][] = [];
  if (header) records.push(header.map((h) => cellValue(h)));
  for (const r of rows) records.push(r.map(cellValue));
  if (records.length === 0) return "";
  return stringify(records, {
    escape_formulas: true,
    // Quote any cell holding CR or LF (a lone CR included), whatever csv-stringify's defaults are.
    quoted_match: /[\r\n]/,
    record_delimiter: "\n",
    cast: { number: (n) => String(n), bigint: (n) => String(n) },
  });
}

export interface CsvSink {
  /** The file being written, or null for stdout. */
  readonly path: string | null;
  /** Appends rows (waits while the destination is busy). */
  write(rows: readonly (readonly Cell[])[]): Promise<void>;
  /** Finishes the output: a file is flushed and renamed into place. */
  commit(): Promise<void>;
  /** Gives up: a temporary file is removed; the destination is left as it was. */
  abort(): Promise<void>;
}

function writeChunk(stream: Writable, text: string): Promise<void> {
  if (text === "") return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    stream.once("error", onError);
    const ok = stream.write(text, (err) => {
      stream.off("error", onError);
      if (err) reject(err);
      else if (ok) resolve();
    });
    if (!ok) {
      stream.once("drain", () => {
        stream.off("error", onError);
        resolve();
      });
    }
  });
}

export interface CsvSinkOptions {
  /** Write a UTF-8 BOM before the header row (for Excel). */
  bom?: boolean | undefined;
}

/**
 * Opens a CSV destination and writes the header row (after a BOM with `bom`). `target` "-" or
 * undefined means `stdout`. A file is created 0600; replacing an existing file keeps that file's mode.
 */
export async function openCsvSink(
  target: string | undefined,
  header: readonly string[],
  stdout: Writable,
  o: CsvSinkOptions = {},
): Promise<CsvSink> {
  const head = (o.bom ? UTF8_BOM : "") + formatCsv([], header);
  if (target === undefined || target === "-") {
    await writeChunk(stdout, head);
    return {
      path: null,
      write: (rows) => writeChunk(stdout, formatCsv(rows)),
      commit: async () => {},
      abort: async () => {},
    };
  }
  const finalPath = target;
  const existing = await stat(finalPath).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`Cannot write ${finalPath}: it is a folder.`);
  let temp: TempOutput;
  try {
    temp = await openTempOutput(finalPath);
  } catch (err) {
    throw fileWriteError(finalPath, err);
  }
  const { stream } = temp;
  let done = false;
  const sink: CsvSink = {
    path: finalPath,
    async write(rows) {
      try {
        await writeChunk(stream, formatCsv(rows));
      } catch (err) {
        throw fileWriteError(finalPath, err);
      }
    },
    async commit() {
      if (done) return;
      done = true;
      try {
        await temp.finish();
      } catch (err) {
        throw fileWriteError(finalPath, err);
      }
    },
    async abort() {
      if (done) return;
      done = true;
      await temp.discard();
    },
  };
  await writeChunk(stream, head).catch(async (err) => {
    await sink.abort();
    throw fileWriteError(finalPath, err);
  });
  return sink;
}

/**
 * For a CSV that is appended to across runs: `--bom` writes the BOM only when the file is created,
 * and is refused (exit 2, the file untouched) on an existing non-empty file that does not start with
 * one, rather than inserting bytes in front of rows already there. Returns whether the file exists
 * with content (a missing or empty file gets the BOM and the header).
 */
export async function checkBomForAppend(path: string): Promise<boolean> {
  let head: Buffer;
  try {
    const fh = await open(path, "r");
    try {
      head = Buffer.alloc(3);
      const { bytesRead } = await fh.read(head, 0, 3, 0);
      head = head.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw fileWriteError(path, err);
  }
  if (head.length === 0) return false;
  if (head.toString("utf8") !== UTF8_BOM)
    throw new UsageError(
      `${path} already has content without a BOM; --bom writes the BOM only when the file is created, and bytes are never inserted in front of rows already there.`,
      "Drop --bom to keep appending to this file, or start a new file with --out NEW.csv --bom (with --from-start to export everything again).",
    );
  return true;
}
