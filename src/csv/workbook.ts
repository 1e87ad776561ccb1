// Reading an Excel workbook (.xlsx) as an input file: the one module that knows the xlsx library
// (exceljs, loaded lazily), so it can be swapped. exceljs's streaming WorkbookReader unzips the file
// and reads the workbook, its shared strings (cached: inherent to the format) and its styles; the
// chosen sheet's XML is read here with exceljs's SAX reader, row by row: no sheet is ever held
// whole. The compressed zip is held, so that a read in which exceljs lost a zip entry can be made
// again (exceljs/exceljs#3064; see WorkbookRecords.read). A sheet that comes before the shared
// strings (exceljs keeps it) or before the workbook part or the styles (EarlySheets here) waits in
// a private temporary file (mode 0600, removed after reading).
//
// Records come out as CsvReader's do (the header first, then blocks of { line, cells }), `line`
// being the sheet's row number; blank rows are skipped. A cell becomes the text Excel shows: strings
// as they are, integers in full digits (zero-padded when the format is "000000"), other numbers in
// their shortest form, booleans true/false, dates YYYY-MM-DD (with a time: YYYY-MM-DDTHH:MM:SS),
// formulas their saved result. An error cell (#N/A) or a formula with no saved result is marked
// `bad` on its record: the caller rejects the row naming the cell when the cell is used.
import { Readable } from "node:stream";
import { UsageError } from "../errors.js";
import { makeSpool } from "./input.js";
import { columnIndex, type Places, sheetPlaces } from "./place.js";
import { CsvFileError, type CsvRecord } from "./read.js";

export interface WorkbookReadOptions {
  /** The file as named in messages ("roster.xlsx", "stdin"). */
  name: string;
  /** `--sheet NAME|N` (N from 1); default: the first visible sheet. */
  sheet?: string | undefined;
}

/** The sheet read, once known. */
export interface SheetFacts {
  name: string;
  /** Its place among the workbook's sheets, from 1. */
  position: number;
  count: number;
}

/** Records per block handed out. */
const BLOCK = 1000;

/** How many times a workbook is read when exceljs loses a zip entry (see WorkbookRecords.read). */
const READS = 5;

/** The parts a sheet's cells need, as exceljs names them on reading, and their paths in the zip. */
const PARTS: [string, string][] = [
  ["workbook", "xl/workbook.xml"],
  ["shared-strings", "xl/sharedStrings.xml"],
  ["styles", "xl/styles.xml"],
];

/** exceljs did not deliver a part of the zip that is there (exceljs/exceljs#3064). */
class LostEntry extends Error {
  constructor(what: string) {
    super(`${what} was not delivered by the zip reader`);
  }
}

// ---- the parts of exceljs used here (its streaming reader has no published types for them) ----
interface SheetModel {
  name: string;
  state?: string;
  rId?: string;
}
interface SaxNode {
  name: string;
  attributes: Record<string, string>;
}
type SaxEvent =
  | { eventType: "opentag"; value: SaxNode }
  | { eventType: "closetag"; value: SaxNode }
  | { eventType: "text"; value: string };
interface ExcelWorksheetReader {
  /** Undefined when the workbook part (the sheet names) was not read yet. */
  name: string | undefined;
  /** The sheet's number in the zip (xl/worksheets/sheetN.xml) until its name is known. */
  id: string | number;
  iterator: AsyncIterable<unknown>;
}
interface ExcelWorkbookReader {
  model?: { sheets?: SheetModel[] };
  workbookRels?: { Id: string; Target: string }[];
  on(event: "entry", listener: (entry: { type: string }) => void): void;
  properties?: { model?: { date1904?: boolean } };
  sharedStrings?: (string | null | { richText: { text: string | null }[] })[];
  styles: { getStyleModel(id: number): { numFmt?: string } | null };
  parse(): AsyncIterable<{ eventType: string; value: unknown }>;
}
type ParseSax = (it: AsyncIterable<unknown>) => AsyncIterable<SaxEvent[]>;

async function loadExcel(): Promise<{ open: (s: Readable) => ExcelWorkbookReader; parseSax: ParseSax }> {
  const ExcelJS = (await import("exceljs")).default;
  // exceljs's own SAX reader (saxes), the one its worksheet reader uses.
  const sax = (await import("exceljs/lib/utils/parse-sax.js")) as unknown as { default: ParseSax };
  const open = (s: Readable) =>
    new ExcelJS.stream.xlsx.WorkbookReader(s, {
      worksheets: "emit",
      sharedStrings: "cache",
      styles: "cache",
      hyperlinks: "ignore",
      entries: "emit",
    }) as unknown as ExcelWorkbookReader;
  return { open, parseSax: sax.default };
}

// ---- cell values as Excel shows them ----

/** Excel's escape for characters XML cannot hold: _x000D_ is a carriage return. */
const unescapeX = (s: string) =>
  s.indexOf("_x") < 0 ? s : s.replace(/_x([0-9A-Fa-f]{4})_/g, (_, h) => String.fromCharCode(parseInt(h, 16)));

/** A number format that shows a date or a time (its quoted text, [colors] and escapes left out). */
function isDateFormat(fmt: string | undefined): boolean {
  if (!fmt || fmt === "General" || fmt === "@") return false;
  const bare = fmt.replace(/"[^"]*"|\[[^\]]*\]|\\./g, "");
  return /[ymdhs]/i.test(bare) && !/^[#0.,%E+\-\s]*$/.test(bare);
}

/** A date serial as ISO text: YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS when it has a time of day. */
function dateText(serial: number, date1904 = false): string {
  const days = serial + (date1904 ? 1462 : 0) - 25569;
  const ms = Math.round((days * 86_400_000) / 1000) * 1000;
  const iso = new Date(ms).toISOString();
  if (!Number.isFinite(ms) || iso === "Invalid Date") return String(serial);
  return ms % 86_400_000 === 0 ? iso.slice(0, 10) : iso.slice(0, 19);
}

/** A number as Excel shows it: whole numbers in full digits (padded by a "0000" format), others shortest. */
function numberText(raw: string, fmt: string | undefined, date1904 = false): string {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n)) return raw;
  if (isDateFormat(fmt)) return dateText(n, date1904);
  if (Number.isInteger(n)) {
    const digits = Math.abs(n) < 1e21 ? String(n) : BigInt(n).toString();
    return fmt && /^0+$/.test(fmt) && n >= 0 ? digits.padStart(fmt.length, "0") : digits;
  }
  return String(Number(n.toPrecision(15)));
}

/** A cell being read. */
interface OpenCell {
  col: number;
  t: string | undefined;
  s: number;
  formula: boolean;
  v: string | undefined;
  /** Inline string text (<is>), its phonetic runs left out. */
  is: string | undefined;
}

/** A cell's text, and why the row cannot use it (an error, a formula with no saved result). */
function cellValue(c: OpenCell, wb: ExcelWorkbookReader): { text: string; bad?: string } {
  if (c.t === "inlineStr") return { text: unescapeX(c.is ?? c.v ?? "") };
  if (c.v === undefined)
    return c.formula ? { text: "", bad: "is a formula with no saved result" } : { text: "" };
  switch (c.t) {
    case "s": {
      const ss = wb.sharedStrings?.[Number(c.v)];
      const text = typeof ss === "string" ? ss : ss ? ss.richText.map((r) => r.text ?? "").join("") : "";
      return { text: unescapeX(text) };
    }
    case "str":
      return { text: unescapeX(c.v) };
    case "e":
      return { text: c.v, bad: `holds the error ${c.v}` };
    case "b":
      return { text: c.v === "1" || c.v === "true" ? "true" : "false" };
    case "d":
      return { text: c.v.endsWith("T00:00:00") || c.v.endsWith("T00:00:00Z") ? c.v.slice(0, 10) : c.v };
    default: {
      const fmt = c.s ? (wb.styles.getStyleModel(c.s)?.numFmt ?? undefined) : undefined;
      return { text: numberText(c.v, fmt, wb.properties?.model?.date1904 === true) };
    }
  }
}

// ---- the rows of one sheet ----

/** Reads the rows of a sheet's XML: each row's number, its cells by column, the cells it cannot use. */
class SheetRows {
  private row = 0;
  private cells: string[] = [];
  private bad: { col: number; why: string }[] = [];
  private cell: OpenCell | undefined;
  private into: "v" | "is" | undefined;
  private inIs = false;
  private inPhonetic = false;
  private lastCol = -1;

  constructor(
    private readonly wb: ExcelWorkbookReader,
    private readonly emit: (row: number, cells: string[], bad: { col: number; why: string }[]) => void,
  ) {}

  events(list: SaxEvent[]): void {
    for (const e of list) {
      if (e.eventType === "text") {
        if (this.into === "v") this.cell!.v = (this.cell!.v ?? "") + e.value;
        else if (this.into === "is") this.cell!.is = (this.cell!.is ?? "") + e.value;
      } else if (e.eventType === "opentag") this.open(e.value);
      else this.close(e.value.name);
    }
  }

  private open(node: SaxNode): void {
    const a = node.attributes;
    switch (node.name) {
      case "row":
        this.row = a.r ? Number.parseInt(a.r, 10) : this.row + 1;
        this.cells = [];
        this.bad = [];
        this.lastCol = -1;
        break;
      case "c": {
        const letters = a.r ? /^[A-Za-z]+/.exec(a.r)?.[0] : undefined;
        const col = letters ? columnIndex(letters) : this.lastCol + 1;
        this.lastCol = col;
        const s = a.s ? Number.parseInt(a.s, 10) : 0;
        this.cell = { col, t: a.t, s, formula: false, v: undefined, is: undefined };
        break;
      }
      case "f":
        if (this.cell) this.cell.formula = true;
        break;
      case "v":
        if (this.cell) this.into = "v";
        break;
      case "is":
        this.inIs = true;
        break;
      case "rPh":
        this.inPhonetic = true;
        break;
      case "t":
        if (this.cell && this.inIs && !this.inPhonetic) this.into = "is";
        break;
    }
  }

  private close(name: string): void {
    switch (name) {
      case "v":
      case "t":
        this.into = undefined;
        break;
      case "is":
        this.inIs = false;
        break;
      case "rPh":
        this.inPhonetic = false;
        break;
      case "c": {
        const c = this.cell;
        this.cell = undefined;
        if (!c || c.col < 0) break;
        const { text, bad } = cellValue(c, this.wb);
        while (this.cells.length < c.col) this.cells.push("");
        this.cells[c.col] = text;
        if (bad) this.bad.push({ col: c.col, why: bad });
        break;
      }
      case "row":
        this.emit(this.row, this.cells, this.bad);
        break;
    }
  }
}

// ---- the workbook ----

const blank = (cells: readonly string[]) => cells.every((c) => c.trim() === "");

/** Reads what is left of an entry without looking at it (a sheet not chosen). */
async function drain(it: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of it);
}

/** Sheets that came before the workbook part or the styles, each kept in a private temporary file. */
class EarlySheets {
  private readonly kept: { id: string; spool: Awaited<ReturnType<typeof makeSpool>> }[] = [];

  async keep(ws: ExcelWorksheetReader): Promise<void> {
    const spool = await makeSpool();
    this.kept.push({ id: String(ws.id), spool });
    for await (const chunk of ws.iterator) await spool.fh.write(chunk as Uint8Array);
  }

  /** The kept sheets, named now that the workbook part is read, each read from its file. */
  *sheets(wb: ExcelWorkbookReader): Generator<ExcelWorksheetReader> {
    for (const { id, spool } of this.kept) {
      const rel = wb.workbookRels?.find((r) => r.Target === `worksheets/sheet${id}.xml`);
      const name = rel && wb.model?.sheets?.find((sh) => sh.rId === rel.Id)?.name;
      yield { name, id, iterator: spool.fh.createReadStream({ start: 0, autoClose: false }) };
    }
  }

  async close(): Promise<void> {
    for (const { spool } of this.kept) {
      await spool.fh.close().catch(() => {});
      await spool.cleanup();
    }
  }
}

/** The records of one sheet of a workbook, in CsvReader's shape (see the top of this file). */
export class WorkbookRecords {
  /** Records only counted, not handed out: always 0 here (CsvReader's `counted`). */
  readonly counted = 0;
  /** The sheet read, once found. */
  sheet: SheetFacts | undefined;
  /** The header's width: the columns up to its last named one. */
  private width = 0;

  constructor(private readonly o: WorkbookReadOptions) {}

  /** Where rows and cells of the sheet are, for messages. */
  get places(): Places {
    return sheetPlaces(this.sheet?.name ?? "Sheet1", this.width);
  }

  /** The header record alone, then blocks of records (CsvReader.blocks). */
  blocks(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRecord[]> {
    return this.read(chunks);
  }

  private async *read(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRecord[]> {
    // The zip is held (compressed: a few bytes a row) so that it can be read again: exceljs's
    // streaming reader sometimes loses a zip entry (the last one, often xl/workbook.xml:
    // exceljs/exceljs#3064). A read that lost one before any record was handed out is made again,
    // up to READS times; a loss is never silent.
    const parts: Uint8Array[] = [];
    for await (const c of chunks) parts.push(c);
    const zip = Buffer.concat(parts);
    for (let read = 1; ; read++) {
      let handed = false;
      try {
        for await (const block of this.readOnce(zip)) {
          handed = true;
          yield block;
        }
        return;
      } catch (err) {
        if (!(err instanceof LostEntry) || handed || read >= READS) throw this.failure(err);
      }
    }
  }

  private async *readOnce(zip: Buffer): AsyncGenerator<CsvRecord[]> {
    const excel = await loadExcel();
    const input = Readable.from([zip], { objectMode: false });
    const wb = excel.open(input);
    // exceljs reads a sheet as it comes once the shared strings and the workbook's relationships came
    // before it, even when the workbook part (the sheet names) or the styles (number formats: dates,
    // "000000") come after it in the zip, as some writers order them. Such a sheet is kept in a
    // private temporary file and read once the rest is known. (The placeholder model keeps exceljs
    // from failing on the names it looks up; the workbook part replaces it.)
    const seen = new Set<string>();
    wb.on("entry", (e) => seen.add(e.type));
    // A part the zip's directory names that was not delivered (yet).
    const lost = () => PARTS.find(([type, path]) => !seen.has(type) && zip.includes(path))?.[1];
    const placeholder = { sheets: [] };
    wb.model = placeholder;
    const early = new EarlySheets();
    this.found = false;
    try {
      for await (const ev of wb.parse()) {
        if (ev.eventType !== "worksheet") continue;
        const ws = ev.value as ExcelWorksheetReader;
        if (seen.has("workbook") && seen.has("styles")) yield* this.take(wb, ws, excel.parseSax, lost);
        else if (seen.has("workbook") && (this.found || !this.isChosen(wb, ws))) await drain(ws.iterator);
        else await early.keep(ws);
      }
      if (wb.model === placeholder || !wb.model) {
        // Named in the zip's directory, but not delivered: lost, not missing.
        if (seen.has("workbook") || zip.includes("xl/workbook.xml")) throw new LostEntry("xl/workbook.xml");
        throw new CsvFileError(
          `${this.o.name} is a zip archive, not an Excel workbook (it holds no xl/workbook.xml).`,
          undefined,
          "Give the .xlsx workbook or a CSV file.",
        );
      }
      for (const ws of early.sheets(wb)) yield* this.take(wb, ws, excel.parseSax, lost);
      if (!this.found) {
        const name = this.chosen(wb); // throws when there is no such sheet
        throw new LostEntry(`the sheet "${name}"`);
      }
    } finally {
      input.destroy();
      await early.close();
    }
  }

  /** Whether the sheet to read was found (and read). */
  private found = false;

  /** Reads `ws` when it is the sheet to read (the first such), else reads past it. */
  private async *take(
    wb: ExcelWorkbookReader,
    ws: ExcelWorksheetReader,
    parseSax: ParseSax,
    lost: () => string | undefined,
  ): AsyncGenerator<CsvRecord[]> {
    if (this.found || !this.isChosen(wb, ws)) {
      await drain(ws.iterator);
      return;
    }
    // The cells need the shared strings and the styles: read without them, they would be wrong.
    const missing = lost();
    if (missing) throw new LostEntry(missing);
    this.found = true;
    yield* this.sheetBlocks(wb, ws, parseSax);
  }

  /** Whether `ws` is the sheet to read. */
  private isChosen(wb: ExcelWorkbookReader, ws: ExcelWorksheetReader): boolean {
    return ws.name === this.chosen(wb);
  }

  /** The name of the sheet to read; throws when no sheet of the workbook is the one asked for. */
  private chosen(wb: ExcelWorkbookReader): string {
    const sheets = wb.model?.sheets ?? [];
    const i = chooseSheet(sheets, this.o.sheet);
    if (i < 0) {
      const list = sheets.map((s) => `"${s.name}"${s.state && s.state !== "visible" ? " (hidden)" : ""}`);
      throw new CsvFileError(
        `${this.o.name} has no sheet "${this.o.sheet}"; its sheets are: ${list.join(", ")}.`,
        undefined,
        `Choose one with --sheet NAME, or --sheet N for the Nth (1 to ${sheets.length}).`,
      );
    }
    this.sheet = { name: sheets[i]!.name, position: i + 1, count: sheets.length };
    return sheets[i]!.name;
  }

  private async *sheetBlocks(
    wb: ExcelWorkbookReader,
    ws: ExcelWorksheetReader,
    parseSax: ParseSax,
  ): AsyncGenerator<CsvRecord[]> {
    let out: CsvRecord[] = [];
    let headerOut = false;
    const rows = new SheetRows(wb, (line, cells, bad) => {
      if (bad.length === 0 && blank(cells)) return;
      if (!headerOut && out.length === 0) {
        let w = cells.length;
        while (w > 0 && cells[w - 1]!.trim() === "") w--;
        this.width = w;
        out.push({ line, cells: cells.slice(0, w) });
        return;
      }
      out.push(this.record(line, cells, bad));
    });
    for await (const events of parseSax(ws.iterator)) {
      rows.events(events);
      if (!headerOut && out.length > 0) {
        headerOut = true;
        yield [out[0]!];
        out = out.slice(1);
      }
      if (out.length >= BLOCK) {
        yield out;
        out = [];
      }
    }
    if (out.length > 0) yield out;
  }

  /** A row as a record: as wide as the header (blank cells past it left out); unusable cells marked. */
  private record(line: number, cells: string[], bad: { col: number; why: string }[]): CsvRecord {
    let end = cells.length;
    while (end > this.width && cells[end - 1]!.trim() === "") end--;
    if (end < cells.length) cells.length = end;
    while (cells.length < this.width) cells.push("");
    return bad.length > 0 ? { line, cells, bad } : { line, cells };
  }

  /** A failure of the zip or the XML as a usage error naming the file. */
  private failure(err: unknown): unknown {
    if (err instanceof UsageError) return err;
    const why = err instanceof Error ? err.message : String(err);
    return new CsvFileError(
      `${this.o.name} cannot be read as an Excel workbook (${why}).`,
      undefined,
      "If Excel opens it, save it again as .xlsx (or as CSV UTF-8) and import that file.",
    );
  }
}

/** The index of the sheet asked for (a name, any case, or a number from 1; default the first visible), or -1. */
function chooseSheet(sheets: readonly SheetModel[], want: string | undefined): number {
  if (sheets.length === 0) return -1;
  if (want === undefined) {
    const i = sheets.findIndex((s) => !s.state || s.state === "visible");
    return i < 0 ? 0 : i;
  }
  const exact = sheets.findIndex((s) => s.name === want);
  if (exact >= 0) return exact;
  const loose = sheets.findIndex((s) => s.name.trim().toLowerCase() === want.trim().toLowerCase());
  if (loose >= 0) return loose;
  const n = /^\s*\d+\s*$/.test(want) ? Number(want) : 0;
  return n >= 1 && n <= sheets.length ? n - 1 : -1;
}
