// CSV output for exports and rejects files: a header row, identifiers as text, formula-like cells
// escaped (csv-stringify's escape_formulas plus one rule of our own so the escape can be undone), CR
// and LF inside cells quoted. A file target is written to a temporary file beside it and renamed into
// place on commit, so an interrupted run never leaves a half-written file under the real name.
import { randomBytes } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { rename, stat, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Writable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import { UsageError } from "../errors.js";

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
  return ESCAPED_RE.test(value) ? value.slice(1) : value;
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

function fileError(path: string, err: unknown): UsageError {
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === "ENOENT"
      ? "the folder does not exist"
      : e.code === "EACCES" || e.code === "EPERM"
        ? "permission denied"
        : e.code === "EISDIR"
          ? "it is a folder"
          : (e.message ?? String(err));
  return new UsageError(`Cannot write ${path}: ${why}.`);
}

/**
 * Opens a CSV destination and writes the header row. `target` "-" or undefined means `stdout`.
 */
export async function openCsvSink(
  target: string | undefined,
  header: readonly string[],
  stdout: Writable,
): Promise<CsvSink> {
  if (target === undefined || target === "-") {
    await writeChunk(stdout, formatCsv([], header));
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
  const tmp = join(
    dirname(finalPath),
    `.${basename(finalPath)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  const stream: WriteStream = createWriteStream(tmp, { flags: "wx" });
  await new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    stream.once("error", (err) => reject(fileError(finalPath, err)));
  });
  let done = false;
  const sink: CsvSink = {
    path: finalPath,
    async write(rows) {
      try {
        await writeChunk(stream, formatCsv(rows));
      } catch (err) {
        throw fileError(finalPath, err);
      }
    },
    async commit() {
      if (done) return;
      done = true;
      try {
        await new Promise<void>((resolve, reject) => {
          stream.once("error", reject);
          stream.end(() => resolve());
        });
        await rename(tmp, finalPath);
      } catch (err) {
        await unlink(tmp).catch(() => {});
        throw fileError(finalPath, err);
      }
    },
    async abort() {
      if (done) return;
      done = true;
      await new Promise<void>((resolve) => {
        stream.once("close", () => resolve());
        stream.destroy();
      });
      await unlink(tmp).catch(() => {});
    },
  };
  await writeChunk(stream, formatCsv([], header)).catch((err) => {
    throw fileError(finalPath, err);
  });
  return sink;
}
