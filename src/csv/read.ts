// Streaming CSV reading for input files (rosters, id lists). Bytes are decoded by src/csv/decode.ts
// (UTF-8, UTF-16 by byte order mark, or --encoding), the delimiter is taken from the header line
// (`,` `;` tab `|`, or --delimiter), and csv-parse reads the fields: CRLF, LF or CR line ends (mixed
// too), quoted fields with delimiters, quotes and line breaks.
//
// Line numbers are exact in any file size: the text is cut into records here (a record ends at a
// line end where the number of quote characters seen since its start is even, which is where a
// valid CSV record ends), so each record's first physical line is known; csv-parse then reads a
// block of whole records at a time. When csv-parse refuses a record, the error names the physical
// line and field where it stopped, with an excerpt. Blank lines are skipped before the parser sees
// them: they cost a line count, nothing more.
//
// Most records of a roster hold no quote at all; for those csv-parse's reading is the plain split at
// the delimiter, so `plainCells` splits them itself (when no field starts or ends with anything
// csv-parse would trim) and csv-parse reads the rest. Records are handed out in blocks (`blocks`):
// one await per block of text, not one per record.
import { parse } from "csv-parse/sync";
import { UsageError } from "../errors.js";
import { uPlus } from "../io/visible.js";
import { ControlCharacterError, DecodeError, type DecodedText, decodeAll, decodeText } from "./decode.js";
import { type Footer, type RawRecord, RecordGate } from "./footer.js";
import { fieldCountReason } from "./roster.js";

export const MAX_RECORD_BYTES = 64 * 1024;

/** The input file itself cannot be used. `line` is where the problem is, when known. */
export class CsvFileError extends UsageError {
  readonly line: number | undefined;
  /** The first line of the message (what and where), without the excerpt. */
  readonly headline: string;
  readonly excerpt: string | undefined;
  constructor(headline: string, line?: number, hint?: string, excerpt?: string) {
    super(excerpt ? `${headline}\n${excerpt}` : headline, hint);
    this.headline = headline;
    this.line = line;
    this.excerpt = excerpt;
  }
  /** The same error with more said after the headline ("Nothing was sent."). */
  withNote(note: string): CsvFileError {
    return new CsvFileError(`${this.headline} ${note}`, this.line, this.hint, this.excerpt);
  }
}

export interface CsvRecord {
  /** Physical line where the record starts (counting the header as line 1). */
  line: number;
  cells: string[];
  /** Cells the row cannot use (a workbook's error cells, formulas with no saved result), by column from 0. */
  bad?: { col: number; why: string }[];
}

export interface CsvReadOptions {
  /** The file as named in messages ("roster.csv", "stdin"). */
  name: string;
  /** `--encoding`, already checked with checkEncoding. */
  encoding?: string | undefined;
  /** `--delimiter`, already checked with parseDelimiter. */
  delimiter?: string | undefined;
  /** Where notes for stderr go (a byte order mark that overrides --encoding). */
  note?: ((line: string) => void) | undefined;
  /** `--quote`, already checked with parseQuote: "none" reads `"` as ordinary text. */
  quote?: QuoteMode | undefined;
}

export type QuoteMode = "double" | "none";

/** Parses `--quote`: `double` (standard CSV quoting, the default) or `none` (quotes are text). */
export function parseQuote(value: string | undefined): QuoteMode | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === "double" || v === "none") return v;
  throw new UsageError(
    `--quote "${value}" is not double or none.`,
    '--quote none reads " as ordinary text (for | and tab exports that never quote fields); double (the default) is standard CSV quoting.',
  );
}

/** What was found out while reading: filled in as soon as it is known. */
export interface CsvFacts extends DecodedText {
  delimiter: string;
  delimiterSource: "flag" | "header" | "default" | "sep";
}

const DELIMITERS = [",", ";", "\t", "|"];

/** Parses `--delimiter`: `,` `;` `|`, a tab, or the words `tab` / `\t`. */
export function parseDelimiter(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const v = value === "\t" ? value : value.trim();
  const d = v.toLowerCase() === "tab" || v === "\\t" ? "\t" : v;
  if (!DELIMITERS.includes(d)) {
    throw new UsageError(
      `--delimiter "${value}" is not one of , ; | tab.`,
      'Examples: --delimiter ";" (European Excel), --delimiter tab (tab-separated text).',
    );
  }
  return d;
}

/** The delimiter a header line uses: the candidate found most often outside quotes (`,` when none). */
export function detectDelimiter(headerLine: string, quoting = true): string | undefined {
  const bare = quoting ? headerLine.replace(/"[^"]*"/g, "") : headerLine;
  let best: string | undefined;
  let bestCount = 0;
  for (const d of DELIMITERS) {
    const n = bare.split(d).length - 1;
    if (n > bestCount) {
      best = d;
      bestCount = n;
    }
  }
  return best;
}

/** The cells of a record read only to be checked and counted. */
const NO_CELLS: string[] = [];

/** A record whose cells are all blank is skipped like a blank line. */
function allBlank(cells: readonly string[]): boolean {
  for (const c of cells) if (c !== "" && c.trim() !== "") return false;
  return true;
}

const BREAK_RE = /\r\n|\r|\n/g;
function countBreaks(s: string): number {
  let n = 0;
  BREAK_RE.lastIndex = 0;
  while (BREAK_RE.exec(s) !== null) n++;
  return n;
}

/**
 * Cuts text blocks into records by quote parity (with quoting off: every line end ends a record);
 * blank lines (spaces and tabs only) are skipped. Every record and blank line passes the gate
 * (src/csv/footer.ts: the sep= line, the header, a report's footer).
 */
class RecordCutter {
  /** Physical line number of the next line. */
  line = 1;
  constructor(
    private readonly gate: RecordGate,
    private readonly quoting: boolean,
    private readonly blankRecord: (text: string) => boolean,
  ) {}
  private partial = "";
  private parts: string[] | null = null;
  private size = 0;
  private odd = false;
  private start = 0;
  /** The text last searched for quotes, and where its next quote is (-1: none). */
  private quoteIn = "";
  private quoteAt = -1;

  /** Adds text; appends finished records to `out`. With `end`, the text is the last. */
  push(text: string, out: RawRecord[], end = false): void {
    const s = this.partial ? this.partial + text : text;
    this.partial = "";
    let pos = 0;
    if (s.indexOf("\r") < 0) {
      // LF line ends only (the common case): found with indexOf, without the regular expression.
      for (let lf = s.indexOf("\n"); lf >= 0; lf = s.indexOf("\n", pos)) {
        this.addLine(s, pos, lf, lf + 1, out);
        pos = lf + 1;
      }
    } else {
      BREAK_RE.lastIndex = 0;
      for (;;) {
        const m = BREAK_RE.exec(s);
        if (m === null) break;
        const next = m.index + m[0].length;
        // A CR at the very end may be the first half of a CRLF: wait for more text.
        if (!end && next === s.length && m[0] === "\r") break;
        this.addLine(s, pos, m.index, next, out);
        pos = next;
      }
    }
    if (pos < s.length) {
      // A line far longer than any record is handed over as it is (csv-parse refuses it): memory
      // stays bounded even for a file without line ends.
      if (end || s.length - pos > 2 * MAX_RECORD_BYTES) this.addLine(s, pos, s.length, s.length, out);
      else this.partial = s.slice(pos);
    }
    if (end && this.parts) this.finish(out);
    if (end) this.gate.end();
  }

  /**
   * `push` for a pass that only counts: a text with no quote and LF line ends only (the common case),
   * with no record open, is scanned line by line without making records. Returns how many records it
   * counted (not blank: lines of spaces and all-blank records skipped); a record that needs reading
   * (a long one) is appended to `out`, as is every record of any other text (then 0 is returned).
   */
  pushCounting(text: string, out: RawRecord[], end: boolean, delimiter: string): number {
    const q = this.quoting;
    const quoted = (q && text.indexOf('"') >= 0) || text.indexOf("\r") >= 0;
    const partial = this.partial;
    if (quoted || this.parts !== null || (q && partial.indexOf('"') >= 0) || partial.indexOf("\r") >= 0) {
      this.push(text, out, end);
      return 0;
    }
    const s = this.partial ? this.partial + text : text;
    this.partial = "";
    let n = 0;
    let pos = 0;
    for (let lf = s.indexOf("\n"); lf >= 0; lf = s.indexOf("\n", pos)) {
      n += this.countLine(s, pos, lf + 1, out, delimiter);
      pos = lf + 1;
    }
    if (pos < s.length) {
      if (end || s.length - pos > 2 * MAX_RECORD_BYTES) n += this.countLine(s, pos, s.length, out, delimiter);
      else this.partial = s.slice(pos);
    }
    if (end) this.gate.end();
    return n;
  }

  /** One line of `pushCounting` (no quote in it): 1 when it is a record, 0 when blank or handed over in `out`. */
  private countLine(s: string, a: number, next: number, out: RawRecord[], delimiter: string): number {
    const line = this.line++;
    if (next - a > PLAIN_MAX) {
      this.gate.record({ line, text: s.slice(a, next) }, out);
      return 0;
    }
    const c = s.charCodeAt(a);
    // Only a line that starts with a delimiter or a space can be blank or all blank cells.
    if (c === delimiter.charCodeAt(0) || trimmable(c) || a === next) {
      if (allBlank(s.slice(a, next).split(delimiter))) {
        this.gate.blank();
        return 0;
      }
    }
    if (this.gate.holding) {
      this.gate.record({ line, text: s.slice(a, next) }, out);
      return 0;
    }
    return 1;
  }

  private addLine(s: string, a: number, b: number, next: number, out: RawRecord[]): void {
    const opening = this.parts === null;
    if (opening) {
      let blank = true;
      for (let i = a; i < b; i++) {
        const c = s.charCodeAt(i);
        if (c !== 0x20 && c !== 0x09) {
          blank = false;
          break;
        }
      }
      if (blank) {
        this.line++;
        this.gate.blank();
        return;
      }
      if (!this.quoting) {
        this.pass({ line: this.line++, text: a === 0 && next === s.length ? s : s.slice(a, next) }, out);
        return;
      }
    }
    // The next quote in `s` at or after `a`, found once per quote (not searched again for every line
    // of a block without quotes).
    let q = this.quoteIn === s && (this.quoteAt >= a || this.quoteAt < 0) ? this.quoteAt : s.indexOf('"', a);
    this.quoteIn = s;
    if (opening && (q < 0 || q >= b)) {
      // No record open and no quote on the line: the line is a record by itself.
      this.quoteAt = q;
      this.pass({ line: this.line, text: a === 0 && next === s.length ? s : s.slice(a, next) }, out);
      this.line++;
      return;
    }
    if (opening) {
      this.parts = [];
      this.size = 0;
      this.odd = false;
      this.start = this.line;
    }
    while (q >= 0 && q < b) {
      this.odd = !this.odd;
      q = s.indexOf('"', q + 1);
    }
    this.quoteAt = q;
    this.parts!.push(a === 0 && next === s.length ? s : s.slice(a, next));
    this.size += next - a;
    this.line++;
    // An open quote that runs past the size limit is handed over as it is: csv-parse refuses it.
    if (!this.odd || this.size > MAX_RECORD_BYTES) this.finish(out);
  }

  private finish(out: RawRecord[]): void {
    const parts = this.parts!;
    this.parts = null;
    this.pass({ line: this.start, text: parts.length === 1 ? parts[0]! : parts.join("") }, out);
  }

  /** A whole record through the gate; one of blank cells only (no quote in it) counts as a blank line too. */
  private pass(rec: RawRecord, out: RawRecord[]): void {
    if (this.blankRecord(rec.text)) this.gate.blankRecord(rec, out);
    else this.gate.record(rec, out);
  }
}

/** Excel's first line naming the delimiter: `sep=;` (the delimiter may repeat, spaces may follow). */
const SEP_LINE = /^\ufeff?sep=([,;|\t])\1*[ ]*(\r\n|\r|\n)?$/i;

/** The delimiter a `sep=X` line names (Excel's first line), or undefined for any other line. */
export function sepDelimiter(line: string): string | undefined {
  return SEP_LINE.exec(line)?.[1];
}

const shownDelimiter = (d: string) => (d === "\t" ? "tab" : `"${d}"`);

/** Longest record (in UTF-16 units) split without csv-parse: well under MAX_RECORD_BYTES in UTF-8. */
const PLAIN_MAX = MAX_RECORD_BYTES / 4;

/**
 * A character csv-parse trims around a field (its ltrim list, String#trimEnd for rtrim) or that the
 * plain split must not meet at a field's edge: such a record goes to csv-parse.
 */
function trimmable(c: number): boolean {
  return (
    c <= 0x20 ||
    (c >= 0x7f && c <= 0xa0) ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The cells of one record (one line, its line end included) as csv-parse reads them, when that is
 * the plain split at the delimiter: no quote in it, no field starting or ending with a character
 * csv-parse trims, not long. Otherwise undefined (csv-parse reads it).
 */
export function plainCells(text: string, delimiter: string, quoting = true): string[] | undefined {
  if (text.length > PLAIN_MAX || (quoting && text.indexOf('"') >= 0)) return undefined;
  let end = text.length;
  if (text.charCodeAt(end - 1) === 0x0a) end--;
  if (text.charCodeAt(end - 1) === 0x0d) end--;
  const cells = (end === text.length ? text : text.slice(0, end)).split(delimiter);
  for (const c of cells) {
    if (c.length > 0 && (trimmable(c.charCodeAt(0)) || trimmable(c.charCodeAt(c.length - 1))))
      return undefined;
  }
  return cells;
}

/** csv-parse's options for input files (exported for the test that holds `plainCells` to them). */
export function parseOptions(delimiter: string, raw = false, quote: QuoteMode = "double") {
  return {
    delimiter,
    raw,
    // --quote none: `"` is ordinary text (csv-parse's quoting off).
    quote: quote === "none" ? (false as const) : ('"' as const),
    relax_column_count: true, // a row with a wrong field count is reported per row by the caller
    // Spaces around a field are not part of it (`a, "b, c" ,d` is a, "b, c", d); spaces inside quotes are.
    ltrim: true,
    rtrim: true,
    max_record_size: MAX_RECORD_BYTES,
    record_delimiter: ["\r\n", "\n", "\r"],
    skip_empty_lines: false,
  };
}

type CsvParseError = Error & { code?: string; column?: number | string; raw?: string; records?: number };

/** Shows a line with a caret under `col`; long lines are cut around it. Tabs show as "→". */
export function excerpt(lineNo: number, text: string, col?: number): string {
  const shown = text.replace(/\t/g, "→").replace(/[\u0000-\u001f\u007f]/g, "·");
  let from = 0;
  let to = shown.length;
  const c = col ?? 0;
  if (to > 100) {
    from = Math.max(0, c - 60);
    to = Math.min(shown.length, from + 100);
  }
  const body = `${from > 0 ? "…" : ""}${shown.slice(from, to)}${to < shown.length ? "…" : ""}`;
  const gutter = `  ${lineNo} | `;
  const lines = [`${gutter}${body}`];
  if (col !== undefined)
    lines.push(`${" ".repeat(gutter.length - 2)}| ${" ".repeat(c - from + (from > 0 ? 1 : 0))}^`);
  return lines.join("\n");
}

/** The encodings a file that is not UTF-8 is suggested, first to last, and how the preview names them. */
const SUGGESTED = [
  { encoding: "windows-1252", label: "Windows-1252" },
  { encoding: "macintosh", label: "Mac Roman (macintosh)" },
] as const;
/** The same for a file whose lines end in CR only. */
const SUGGESTED_MAC = [SUGGESTED[1], SUGGESTED[0]] as const;

/**
 * A line's bytes as text for an error: by the import's own decoder (decode.ts), with the import's
 * options (a byte order mark is dropped on line 1 only); bytes that do not decode show as U+FFFD.
 */
function previewLine(bytes: Uint8Array, encoding: string, line: number): string {
  const ignoreBOM = line > 1;
  try {
    return decodeAll(bytes, encoding, { ignoreBOM });
  } catch {
    return decodeAll(bytes, encoding, { ignoreBOM, fatal: false });
  }
}

export class CsvReader {
  readonly facts: CsvFacts;
  private header: string[] | undefined;
  /** Quotes are CSV quoting (not --quote none). */
  private readonly quoting: boolean;
  private gate: RecordGate | undefined;

  constructor(private readonly o: CsvReadOptions) {
    this.facts = {
      encoding: "utf-8",
      source: "default",
      delimiter: o.delimiter ?? ",",
      delimiterSource: o.delimiter ? "flag" : "default",
    };
    this.quoting = o.quote !== "none";
  }

  /** The report footer skipped at the end of the file (src/csv/footer.ts), once read to its end. */
  get footer(): Footer | undefined {
    return this.gate?.footer;
  }

  /** csv-parse's options for this file. */
  private opts(raw = false) {
    return parseOptions(this.facts.delimiter, raw, this.quoting ? "double" : "none");
  }

  private fieldName(col: number | string | undefined): string {
    if (typeof col !== "number") return "";
    const h = this.header?.[col]?.trim();
    return `, field ${col + 1}${h ? ` (${h})` : ""}`;
  }

  /** The error for a quoted field never closed, at the line where it opens. */
  private unclosedQuote(err: CsvParseError, rec: RawRecord, lines: string[]): CsvFileError {
    const name = this.o.name;
    // The line where the never-closed quoted field opens: the first prefix of the record that
    // ends inside that same field.
    let open = 0;
    for (let k = 1; k <= Math.min(lines.length, 500); k++) {
      try {
        parse(lines.slice(0, k).join("\n"), { ...this.opts(), max_record_size: 0 });
      } catch (e) {
        const pe = e as CsvParseError;
        if (pe.code === "CSV_QUOTE_NOT_CLOSED" && pe.column === err.column) {
          open = k - 1;
          break;
        }
      }
    }
    const line = lines[open] ?? "";
    return new CsvFileError(
      `${name}: line ${rec.line + open}${this.fieldName(err.column)}: a quoted field opens here and is never closed${open > 0 ? ` (the record starts on line ${rec.line})` : ""}.`,
      rec.line + open,
      this.quoteHint(
        'Close the quote. If the quote is part of the text, quote the whole field and write the quote twice ("").',
        rec.line + open,
        line,
      ),
      excerpt(rec.line + open, line),
    );
  }

  /** The error for a record csv-parse refused, at the physical line and field where it stopped. */
  private describe(err: CsvParseError, rec: RawRecord): CsvFileError {
    const name = this.o.name;
    const lines = rec.text.split(/\r\n|\r|\n/);
    const raw = err.raw ?? "";
    const upto = raw.length > 0 ? raw.slice(0, -1) : "";
    const idx = Math.min(countBreaks(upto), lines.length - 1);
    const lastBreak = Math.max(upto.lastIndexOf("\n"), upto.lastIndexOf("\r"));
    const col = upto.length - (lastBreak + 1);
    const at = rec.line + idx;
    const quoteHint = this.quoteHint(
      'Put the whole field in quotes and write each quote inside it twice, e.g. "Tom ""The Bomb"" Jones".',
      at,
      lines[idx] ?? "",
    );
    const unclosed = () => this.unclosedQuote(err, rec, lines);
    switch (err.code) {
      case "CSV_QUOTE_NOT_CLOSED":
        return unclosed();
      case "CSV_MAX_RECORD_SIZE": {
        let open = false;
        try {
          parse(rec.text, { ...this.opts(), max_record_size: 0 });
        } catch (e) {
          open = (e as CsvParseError).code === "CSV_QUOTE_NOT_CLOSED";
        }
        if (open) return unclosed();
        return new CsvFileError(
          `${name}: line ${at}${this.fieldName(err.column)}: the record starting on line ${rec.line} is longer than ${MAX_RECORD_BYTES / 1024} KiB.`,
          at,
          "No roster row is that long; check the file is the CSV you meant.",
          excerpt(at, lines[idx] ?? "", col),
        );
      }
      case "INVALID_OPENING_QUOTE":
      case "CSV_INVALID_OPENING_QUOTE":
        return new CsvFileError(
          `${name}: line ${at}${this.fieldName(err.column)}: a quote inside a field that is not quoted.`,
          at,
          quoteHint,
          excerpt(at, lines[idx] ?? "", col),
        );
      case "CSV_INVALID_CLOSING_QUOTE":
        return new CsvFileError(
          `${name}: line ${at}${this.fieldName(err.column)}: text right after the closing quote of a quoted field.`,
          at,
          quoteHint,
          excerpt(at, lines[idx] ?? "", col + 1),
        );
      case "CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE":
        return new CsvFileError(
          `${name}: line ${at}${this.fieldName(err.column)}: text right after the closing quote of a quoted field.`,
          at,
          quoteHint,
          excerpt(at, lines[idx] ?? "", col),
        );
      default:
        return new CsvFileError(
          `${name}: line ${at}${this.fieldName(err.column)}: not valid CSV (${err.code ?? err.message}).`,
          at,
          undefined,
          excerpt(at, lines[idx] ?? "", col),
        );
    }
  }

  /**
   * The hint for a quote error. A | or tab file rarely quotes its fields: a quote in it is usually
   * text, so the hint offers --quote none, with how the line reads that way.
   */
  private quoteHint(hint: string, lineNo: number, line: string): string {
    const d = this.facts.delimiter;
    if (d !== "|" && d !== "\t") return hint;
    const cells = line.split(d).map((c) => `[${c.trim()}]`);
    return `If quotes are ordinary text in this file (usual in ${d === "|" ? "|" : "tab"}-separated exports), run again with --quote none; line ${lineNo} then reads as ${cells.length} field${cells.length === 1 ? "" : "s"}: ${cells.join(" ")}. Otherwise: ${hint[0]!.toLowerCase()}${hint.slice(1)}`;
  }

  /** Reads a record on its own, to find where it fails. */
  private parseOne(rec: RawRecord): string[][] {
    try {
      const rows = parse(rec.text, this.opts(true)) as unknown as {
        record: string[];
      }[];
      return rows.map((r) => r.record);
    } catch (err) {
      throw this.describe(err as CsvParseError, rec);
    }
  }

  /**
   * Reads a block of whole records; when one of them cannot be read, the records before it (so that
   * they are handed out before the error is thrown).
   */
  private parseGood(recs: RawRecord[]): string[][] {
    try {
      return this.parseBlock(recs);
    } catch (err) {
      const line = err instanceof CsvFileError ? err.line : undefined;
      if (line === undefined) throw err;
      let bad = 0;
      while (bad + 1 < recs.length && recs[bad + 1]!.line <= line) bad++;
      return this.parseBlock(recs.slice(0, bad));
    }
  }

  /** Reads a block of whole records; the result has one cell array per record. */
  private parseBlock(recs: RawRecord[]): string[][] {
    const d = this.facts.delimiter;
    const out: string[][] = new Array(recs.length);
    const rest: number[] = [];
    for (let i = 0; i < recs.length; i++) {
      const cells = plainCells(recs[i]!.text, d, this.quoting);
      if (cells) out[i] = cells;
      else rest.push(i);
    }
    if (rest.length === 0) return out;
    const parsed = this.parseQuoted(rest.length === recs.length ? recs : rest.map((i) => recs[i]!));
    for (let k = 0; k < rest.length; k++) out[rest[k]!] = parsed[k]!;
    return out;
  }

  /**
   * The records of a block that are not blank, without their cells (in no particular order): a
   * record with no quote needs no reading to be valid CSV; the others are read by csv-parse.
   */
  private checkBlock(recs: RawRecord[]): CsvRecord[] {
    const d = this.facts.delimiter;
    const dc = d.charCodeAt(0);
    const out: CsvRecord[] = [];
    const quoted: RawRecord[] = [];
    for (const rec of recs) {
      const t = rec.text;
      if (t.length > PLAIN_MAX || (this.quoting && t.indexOf('"') >= 0)) quoted.push(rec);
      else {
        const c = t.charCodeAt(0);
        // Only a line that starts with a delimiter or a space can be all blank cells.
        if ((c === dc || trimmable(c)) && allBlank(t.split(d))) continue;
        out.push({ line: rec.line, cells: NO_CELLS });
      }
    }
    const rows = this.parseQuoted(quoted);
    for (let i = 0; i < rows.length; i++)
      if (!allBlank(rows[i]!)) out.push({ line: quoted[i]!.line, cells: NO_CELLS });
    return out;
  }

  /** Reads whole records with csv-parse (a block at once; record by record to find a failure). */
  private parseQuoted(recs: RawRecord[]): string[][] {
    if (recs.length === 0) return [];
    const text = recs.length === 1 ? recs[0]!.text : recs.map((r) => r.text).join("");
    let rows: string[][] | undefined;
    try {
      rows = parse(text, this.opts()) as string[][];
    } catch {
      rows = undefined; // found below, record by record
    }
    if (rows && rows.length === recs.length) return rows;
    return recs.map((rec) => {
      const one = this.parseOne(rec);
      if (one.length !== 1) {
        throw new CsvFileError(
          `${this.o.name}: line ${rec.line}: the record starting here could not be read as one CSV record.`,
          rec.line,
          undefined,
          excerpt(rec.line, rec.text.split(/\r\n|\r|\n/)[0] ?? ""),
        );
      }
      return one[0]!;
    });
  }

  /** The field (and its name) `col` (an index in the line's text `shown`) is in. */
  private fieldAt(shown: string, col: number): string {
    const delimiter =
      this.facts.delimiterSource === "default" ? (detectDelimiter(shown) ?? ",") : this.facts.delimiter;
    const before = shown.slice(0, col).replace(/"[^"]*"/g, "");
    return this.fieldName(before.split(delimiter).length - 1);
  }

  /** The error for bytes that are not text in the encoding read, or that decode to a control character. */
  private decodeFailure(err: DecodeError): CsvFileError {
    if (err instanceof ControlCharacterError) return this.controlFailure(err);
    if (!err.chosen && err.encoding === "utf-8") return this.notUtf8(err);
    const name = this.o.name;
    const shown = previewLine(err.lineBytes, err.encoding, err.line);
    const col = previewLine(err.lineBytes.subarray(0, err.byteInLine), err.encoding, err.line).length;
    const label = err.encoding.toUpperCase().replace(/^UTF-16(LE|BE)$/, "UTF-16 $1");
    return new CsvFileError(
      `${name}: line ${err.line}${this.fieldAt(shown, col)}: bytes that are not valid ${label} (byte ${err.byteInLine + 1} of the line).`,
      err.line,
      err.chosen
        ? `The file is not ${label} text: check --encoding (Excel's "CSV" on Windows is windows-1252).`
        : `The file starts with a ${label} byte order mark but is damaged after it.`,
      excerpt(err.line, shown, col),
    );
  }

  /**
   * Not UTF-8, no --encoding: the line as the first encoding suggested reads it (Mac Roman for a file
   * whose lines end in CR only, as classic Mac files do; else Windows-1252), decoded exactly as the
   * import with that --encoding would decode it.
   */
  private notUtf8(err: DecodeError): CsvFileError {
    const [first, second] = err.crOnly ? SUGGESTED_MAC : SUGGESTED;
    const shown = previewLine(err.lineBytes, first.encoding, err.line);
    // A single-byte code page: one character per byte.
    const col = err.byteInLine;
    const hint = err.crOnly
      ? `Its lines end in CR only, as classic Mac files do: if it reads right, run again with --encoding macintosh; else try --encoding ${second.encoding} (Excel's "CSV" on Windows), or save the file as "CSV UTF-8".`
      : `If it reads right, run again with --encoding windows-1252 (Excel's "CSV" on Windows writes that), or save the file as "CSV UTF-8". Other encodings: --encoding latin1, iso-8859-15, shift_jis, ...`;
    return new CsvFileError(
      `${this.o.name}: line ${err.line}${this.fieldAt(shown, col)}: bytes that are not UTF-8 (byte ${err.byteInLine + 1} of the line).`,
      err.line,
      hint,
      `Read as ${first.label}, line ${err.line} is:\n${excerpt(err.line, shown, col)}`,
    );
  }

  /** A C1 control character decoded from a legacy encoding: the encoding named is not the file's. */
  private controlFailure(err: ControlCharacterError): CsvFileError {
    const shown = previewLine(err.lineBytes, err.encoding, err.line);
    const enc = err.encoding;
    const hint =
      err.crOnly && enc !== "macintosh"
        ? `Its lines end in CR only, as classic Mac files do: run again with --encoding macintosh.`
        : `Run again with the encoding the file was saved in (--encoding windows-1250, iso-8859-15, macintosh, ...), or save it as "CSV UTF-8" and drop --encoding.`;
    return new CsvFileError(
      `${this.o.name}: line ${err.line}${this.fieldAt(shown, err.column)}: ${uPlus(err.cp)}, a control character, after decoding as ${enc}: the file is probably not ${enc}.`,
      err.line,
      hint,
      excerpt(err.line, shown, err.column),
    );
  }

  /**
   * Streams the records of a CSV file: the header first, then every record that is not blank
   * (records whose cells are all blank are skipped too). Throws CsvFileError for a file that cannot
   * be read as text or as CSV.
   */
  async *records(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRecord> {
    for await (const block of this.blocks(chunks)) yield* block;
  }

  /**
   * The records of `records`, in blocks: the header alone first, then the records of each text block.
   * With `cells: false` (a pass that only checks the file and counts its records) the records after
   * the header come with no cells and, within a block, not necessarily in line order; the same
   * errors are thrown.
   */
  blocks(
    chunks: AsyncIterable<Uint8Array>,
    o: { cells?: boolean | "count" } = {},
  ): AsyncGenerator<CsvRecord[]> {
    return this.blocksOf(this.decoded(chunks), o.cells ?? true);
  }

  /**
   * With `cells: "count"`: records that need no reading (no quote, LF line ends: most) are only
   * counted here, not handed out; the blocks hold the others (as with `cells: false`), one block
   * (maybe empty) per text block. Records after the header = `counted` + the records handed out.
   */
  counted = 0;

  /** The whole input as text (for small files such as id lists), with the same checks. */
  async text(chunks: AsyncIterable<Uint8Array>): Promise<string> {
    const parts: string[] = [];
    for await (const t of this.decoded(chunks)) parts.push(t);
    const text = parts.join("");
    this.checkNotUtf16(text.slice(0, text.search(/\r|\n|$/)), 1);
    return text;
  }

  private async *decoded(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
    try {
      yield* decodeText(
        chunks,
        { name: this.o.name, encoding: this.o.encoding, note: this.o.note },
        this.facts,
      );
    } catch (err) {
      if (err instanceof DecodeError) throw this.decodeFailure(err);
      throw err;
    }
  }

  /** Records of text blocks made of whole lines (the header first). */
  async *recordsOf(texts: AsyncIterable<string>): AsyncGenerator<CsvRecord> {
    for await (const block of this.blocksOf(texts)) yield* block;
  }

  /** `recordsOf` in blocks: the header alone first. */
  async *blocksOf(
    texts: AsyncIterable<string>,
    cells: boolean | "count" = true,
  ): AsyncGenerator<CsvRecord[]> {
    const iterator = texts[Symbol.asyncIterator]();
    try {
      this.header = undefined;
      this.gate = new RecordGate({
        sepLine: (rec) => this.sepLine(rec),
        header: (rec) => this.readHeader(rec),
        fits: (rec) => this.fits(rec),
      });
      const blank = (text: string) => this.isBlankRecord(text);
      yield* this.cut(iterator, new RecordCutter(this.gate, this.quoting, blank), cells);
    } finally {
      await iterator.return?.();
    }
  }

  private async *cut(
    iterator: AsyncIterator<string>,
    cutter: RecordCutter,
    withCells: boolean | "count",
  ): AsyncGenerator<CsvRecord[]> {
    let recs: RawRecord[] = [];
    let first = true;
    let done = false;
    while (!done) {
      const block = await iterator.next();
      done = block.done === true;
      recs = [];
      if (withCells === "count" && !first) {
        this.counted += cutter.pushCounting(done ? "" : block.value, recs, done, this.facts.delimiter);
        yield this.checkBlock(recs);
        continue;
      }
      cutter.push(done ? "" : block.value, recs, done);
      if (recs.length === 0) continue;
      if (first) {
        // The header on its own (read by the gate, readHeader): it names the fields in later errors.
        first = false;
        const head = recs.shift()!;
        yield [{ line: head.line, cells: this.header ?? [] }];
      }
      if (withCells !== true) {
        const found = this.checkBlock(recs);
        if (found.length > 0) yield found;
        continue;
      }
      const rows = this.parseGood(recs);
      const out: CsvRecord[] = [];
      for (let i = 0; i < rows.length; i++) {
        const cells = rows[i]!;
        if (allBlank(cells)) continue;
        out.push({ line: recs[i]!.line, cells });
      }
      if (out.length > 0) yield out;
      if (rows.length < recs.length) this.parseBlock(recs.slice(rows.length)); // throws: the record that fails
    }
  }

  /**
   * Excel's `sep=X` first line (X one of , ; | tab; the delimiter may repeat after it): its delimiter
   * is the file's, unless --delimiter says otherwise (then the flag wins, with a note).
   */
  private sepLine(rec: RawRecord): boolean {
    const m = SEP_LINE.exec(rec.text);
    if (!m) return false;
    const d = m[1]!;
    if (this.o.delimiter === undefined) {
      this.facts.delimiter = d;
      this.facts.delimiterSource = "sep";
    } else if (this.o.delimiter !== d) {
      this.o.note?.(
        `${this.o.name}: its first line says sep=${d === "\t" ? "<tab>" : d}, but --delimiter says ${shownDelimiter(this.o.delimiter)}: fields are read as separated by ${shownDelimiter(this.o.delimiter)} (the flag wins).`,
      );
    }
    return true;
  }

  /** The header record: settles the delimiter and reads the header's cells. */
  private readHeader(rec: RawRecord): void {
    this.startWith(rec);
    this.header = this.parseOne(rec)[0] ?? [];
  }

  /** A record without quotes (or with quoting off) whose cells are all blank: a blank line. */
  private isBlankRecord(text: string): boolean {
    const d = this.facts.delimiter;
    const c = text.charCodeAt(0);
    // Only a record that starts with a delimiter or a space can be all blank cells (most are not: one test).
    if (!(text.length === 0 || c === d.charCodeAt(0) || trimmable(c))) return false;
    if (text.length > PLAIN_MAX || (this.quoting && text.indexOf('"') >= 0)) return false;
    return allBlank(text.split(d));
  }

  /** Whether a record has the header's field count (the roster's rule); true when it cannot be read. */
  private fits(rec: RawRecord): boolean {
    let cells = plainCells(rec.text, this.facts.delimiter, this.quoting);
    if (!cells) {
      try {
        const rows = parse(rec.text, this.opts()) as string[][];
        if (rows.length !== 1) return true;
        cells = rows[0]!;
      } catch {
        return true; // read as a row: its error is thrown where it is
      }
    }
    return fieldCountReason(cells, this.header ?? []) === undefined;
  }

  /** Settles the delimiter from the header's first line, and refuses text that is clearly not CSV. */
  private startWith(header: RawRecord): void {
    const firstLine = header.text.split(/\r\n|\r|\n/)[0] ?? "";
    this.checkNotUtf16(firstLine, header.line);
    if (this.o.delimiter || this.facts.delimiterSource === "sep") return;
    const d = detectDelimiter(firstLine, this.quoting);
    if (d) {
      this.facts.delimiter = d;
      this.facts.delimiterSource = "header";
    }
  }

  private checkNotUtf16(firstLine: string, line: number): void {
    if (this.facts.source === "default" && firstLine.includes("\u0000")) {
      throw new CsvFileError(
        `${this.o.name} looks like UTF-16 text without a byte order mark (its first line holds NUL characters).`,
        line,
        "Run again with --encoding utf-16le (or utf-16be).",
      );
    }
  }
}
