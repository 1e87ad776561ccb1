// Streaming CSV reading for input files (rosters, id lists): strict UTF-8 (a BOM is accepted), CRLF,
// LF or CR line ends (mixed too), quoted fields with commas, quotes and line breaks. Yields each
// non-blank record with the physical line it starts on (the first line is 1). Nothing is relaxed
// silently: a file that is not valid UTF-8 or not valid CSV stops with a CsvFileError naming the line.
import { once } from "node:events";
import { open } from "node:fs/promises";
import { parse } from "csv-parse";
import { UsageError } from "../errors.js";

export const MAX_RECORD_BYTES = 64 * 1024;

/** The input file itself cannot be used. `line` is where the problem is, when known. */
export class CsvFileError extends UsageError {
  readonly line: number | undefined;
  constructor(message: string, line?: number, hint?: string) {
    super(message, hint);
    this.line = line;
  }
}

export interface CsvRecord {
  /** Physical line where the record starts (counting the header as line 1). */
  line: number;
  cells: string[];
}

/** Offset of the first byte that is not valid UTF-8, or -1. */
export function firstInvalidUtf8(buf: Uint8Array): number {
  const n = buf.length;
  let i = 0;
  while (i < n) {
    const b = buf[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) need = 2;
    else if (b >= 0xf0 && b <= 0xf4) need = 3;
    else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n || (buf[i + k]! & 0xc0) !== 0x80) return i;
    }
    const b1 = buf[i + 1]!;
    if (
      (b === 0xe0 && b1 < 0xa0) ||
      (b === 0xed && b1 > 0x9f) ||
      (b === 0xf0 && b1 < 0x90) ||
      (b === 0xf4 && b1 > 0x8f)
    )
      return i;
    i += need + 1;
  }
  return -1;
}

/** Length of an unfinished multi-byte sequence at the end of `buf` (0 when it ends cleanly). */
function incompleteTail(buf: Uint8Array): number {
  const n = buf.length;
  for (let back = 1; back <= Math.min(3, n); back++) {
    const b = buf[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead byte
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? back : 0;
  }
  return 0;
}

function countByte(buf: Uint8Array, byte: number, end = buf.length): number {
  let c = 0;
  for (let i = 0; i < end; i++) if (buf[i] === byte) c++;
  return c;
}

const BREAK_RE = /\r\n|\r|\n/g;
function countBreaks(s: string): number {
  return s.match(BREAK_RE)?.length ?? 0;
}

function readError(path: string, err: unknown): UsageError {
  const e = err as NodeJS.ErrnoException;
  const why =
    e.code === "ENOENT"
      ? "no such file"
      : e.code === "EISDIR"
        ? "it is a folder, not a file"
        : e.code === "EACCES" || e.code === "EPERM"
          ? "permission denied"
          : (e.message ?? String(err));
  return new UsageError(`Cannot read ${path}: ${why}.`);
}

/** Decodes the file's bytes as strict UTF-8, chunk by chunk. */
async function* decodeUtf8(path: string, chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  // ignoreBOM keeps a leading BOM in the text; csv-parse (bom: true) removes it from the start only.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  let carry: Uint8Array = new Uint8Array(0);
  let newlines = 0;
  let bytes = 0;
  let first = true;
  for await (const chunk of chunks) {
    let buf: Uint8Array = chunk;
    if (first) {
      first = false;
      if (buf.length >= 2 && ((buf[0] === 0xff && buf[1] === 0xfe) || (buf[0] === 0xfe && buf[1] === 0xff))) {
        throw new CsvFileError(
          `${path} is UTF-16 text; partner-cli reads CSV files in UTF-8.`,
          1,
          'Save it again as "CSV UTF-8" (Excel: File > Save As > CSV UTF-8).',
        );
      }
    }
    if (carry.length) {
      const joined = new Uint8Array(carry.length + buf.length);
      joined.set(carry, 0);
      joined.set(buf, carry.length);
      buf = joined;
    }
    const tail = incompleteTail(buf);
    const body = buf.subarray(0, buf.length - tail);
    carry = buf.slice(buf.length - tail);
    let text: string;
    try {
      text = decoder.decode(body);
    } catch {
      const at = Math.max(0, firstInvalidUtf8(body));
      throw invalidUtf8(path, newlines + countByte(body, 0x0a, at) + 1, bytes + at);
    }
    newlines += countByte(body, 0x0a);
    bytes += body.length;
    yield text;
  }
  if (carry.length) throw invalidUtf8(path, newlines + 1, bytes);
}

function invalidUtf8(path: string, line: number, offset: number): CsvFileError {
  return new CsvFileError(
    `${path} is not valid UTF-8 text: line ${line} (byte ${offset}) holds bytes that are not UTF-8.`,
    line,
    'Save the file as "CSV UTF-8" (Excel: File > Save As > CSV UTF-8) and try again.',
  );
}

function csvError(path: string, err: Error & { code?: string }, line: number): CsvFileError {
  switch (err.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return new CsvFileError(
        `${path}: the record starting on line ${line} opens a quoted field that is never closed.`,
        line,
        'Close the quote (a quote inside a quoted field is written twice: "").',
      );
    case "CSV_MAX_RECORD_SIZE":
      return new CsvFileError(
        `${path}: the record starting on line ${line} is longer than ${MAX_RECORD_BYTES / 1024} KiB.`,
        line,
        "A quoted field probably lacks its closing quote on or after that line.",
      );
    case "INVALID_OPENING_QUOTE":
    case "CSV_INVALID_OPENING_QUOTE":
    case "CSV_INVALID_CLOSING_QUOTE":
    case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
      return new CsvFileError(
        `${path}: the record starting on line ${line} has a misplaced quote (${err.code?.endsWith("INVALID_OPENING_QUOTE") ? "a quote inside a field that is not quoted" : "text right after a closing quote"}).`,
        line,
        'Quote the whole field and write each quote inside it twice, e.g. "Maria ""Mia"" Lopez".',
      );
    default:
      return new CsvFileError(
        `${path}: the record starting on line ${line} is not valid CSV (${err.code ?? err.message}).`,
        line,
      );
  }
}

/**
 * Streams the records of a CSV file. Blank lines (and records whose cells are all blank) are
 * skipped but counted, so `line` is always the physical line a record starts on. Memory stays flat:
 * the parser is paused while the consumer is busy.
 */
export async function* readCsvRecords(path: string): AsyncGenerator<CsvRecord> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, "r");
    const st = await fh.stat();
    if (st.isDirectory()) {
      await fh.close();
      throw Object.assign(new Error("EISDIR"), { code: "EISDIR" });
    }
  } catch (err) {
    throw readError(path, err);
  }
  const stream = fh.createReadStream({ highWaterMark: 64 * 1024 });
  const parser = parse({
    bom: true,
    raw: true,
    relax_column_count: true, // a row with a wrong field count is reported per row by the caller
    // Spaces around a field are not part of it (`a, "b, c" ,d` is a, "b, c", d); spaces inside quotes are.
    ltrim: true,
    rtrim: true,
    max_record_size: MAX_RECORD_BYTES,
    record_delimiter: ["\r\n", "\n", "\r"],
    skip_empty_lines: false, // counted below to keep line numbers right
  });
  let line = 1; // where the next record starts
  let pumpError: unknown;
  const pump = (async () => {
    try {
      for await (const text of decodeUtf8(path, stream)) {
        if (parser.destroyed) return;
        if (!parser.write(text)) {
          await Promise.race([once(parser, "drain"), once(parser, "close")]);
        }
      }
      if (!parser.destroyed) parser.end();
    } catch (err) {
      pumpError = err instanceof UsageError ? err : readError(path, err);
      parser.destroy(pumpError as Error);
    }
  })();
  try {
    for await (const rec of parser as AsyncIterable<{ record: string[]; raw: string }>) {
      const start = line;
      line += countBreaks(rec.raw);
      if (rec.record.every((c) => c.trim() === "")) continue;
      yield { line: start, cells: rec.record };
    }
  } catch (err) {
    if (pumpError) throw pumpError;
    if (err instanceof UsageError) throw err;
    throw csvError(path, err as Error, line);
  } finally {
    parser.destroy();
    stream.destroy();
    await pump.catch(() => {});
    await fh.close().catch(() => {});
  }
}
