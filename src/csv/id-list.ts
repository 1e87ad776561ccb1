// A file of ids (`links assign --ids FILE`, and any command given creators as a file): the one reader
// for it, with the same decoding, delimiter detection and header matcher as `roster import`. A file is one id per line only when no line holds
// the delimiter (taken from --delimiter, else the first line, else the first of , ; tab | found);
// then a first line that names an id column ("externalId", "Creator ID", "id", ...) is skipped as a
// header. Otherwise the file is CSV and its header must name the id column (or --column
// externalId=HEADER). Ids are trimmed, blank ones skipped, repeats dropped, and every id is checked
// as the service would (1 to 100 characters, one line) plus no control characters. The caller is
// told (`note`) what was read, with a sample, before anything is sent.
// An Excel workbook (.xlsx, told by its content) is read too: the first sheet (or --sheet), its
// header row naming the id column, or a single column of ids without a header; places are cells.
import type { Readable } from "node:stream";
import { UsageError } from "../errors.js";
import { LIMITS } from "../spec/limits.js";
import { checkEncoding } from "./decode.js";
import { delimiterName, loose, mapColumns, parseColumnFlags, type RosterField } from "./headers.js";
import { openInput } from "./input.js";
import { footerNote } from "./footer.js";
import { noteTextFlags, refuseSheet } from "./records.js";
import { sniff } from "./sniff.js";
import type { Places } from "./place.js";
import {
  CsvReader,
  type CsvRecord,
  detectDelimiter,
  parseDelimiter,
  parseQuote,
  type QuoteMode,
  sepDelimiter,
} from "./read.js";
import { idTextReason, nfcProblem, notNfc, showId } from "./roster.js";
import { unescapeFormulaCell } from "./write.js";

/**
 * Bigger than any useful id list (10,000 ids) with a few extra columns: refuse past it (a file too;
 * the list is held in memory, and stdin or a pipe is never copied to disk).
 */
const MAX_BYTES = 64 * 1024 * 1024;
const SAMPLE = 5;

export interface IdList {
  ids: string[];
  /** Ids read, repeats included. */
  read: number;
  duplicates: number;
  format: "csv" | "lines" | "xlsx";
}

export interface IdListOptions {
  /** `--column externalId=HEADER` flags (only externalId can be mapped). */
  column?: string[] | undefined;
  /** `--encoding NAME`. */
  encoding?: string | undefined;
  /** `--delimiter C`. */
  delimiter?: string | undefined;
  /** `--sheet NAME|N`: the sheet of a workbook. */
  sheet?: string | undefined;
  /** `--quote double|none`. */
  quote?: string | undefined;
  /** Receives the lines to show on stderr (what was read, a sample). */
  note?: ((line: string) => void) | undefined;
}

/** Bytes of the input, refused past MAX_BYTES. */
async function* capped(chunks: AsyncIterable<Uint8Array>, name: string): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const c of chunks) {
    size += c.length;
    if (size > MAX_BYTES)
      throw new UsageError(
        `${name} is too large for an id list: more than 64 MiB, the most read (one assignment takes at most ${LIMITS.assignmentIdsMax.toLocaleString("en-US")} ids); it was not read further. Nothing was sent.`,
        "Give a file of ids only (one per line, or a CSV with few columns).",
      );
    yield c;
  }
}

function idProblem(id: string): string | undefined {
  if ([...id].length > LIMITS.creatorExternalIdMax)
    return `is longer than ${LIMITS.creatorExternalIdMax} characters`;
  if (/[\r\n\u2028\u2029]/.test(id)) return "is not one line";
  return idTextReason(id);
}

const show = (id: string) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);

/** An id and the line it is on. */
interface Entry {
  id: string;
  line: number;
  /** Where it is, when not "line N" (a workbook's cell). */
  at?: string;
  /** Why the cell cannot be used (a workbook's error cell). */
  bad?: string;
}

const where = (e: Entry) => e.at ?? `line ${e.line}`;

/** What was read: the ids in file order (repeats included), and how the file was read (for the note). */
interface Read {
  entries: Entry[];
  format: IdList["format"];
  from: string;
}

type IdFlags = Map<RosterField, string>;

/** The whole list as text (it is small), decoded like any input file; or a workbook's ids. */
async function readInput(
  path: string,
  stdin: Readable,
  reader: (name: string) => CsvReader,
  workbook: (name: string, chunks: AsyncIterable<Uint8Array>) => Promise<Read>,
): Promise<{ name: string; text?: string; read?: Read }> {
  const input = await openInput(path, stdin, { passes: 1 });
  const name = input.name;
  try {
    const { kind, chunks } = await sniff(name, capped(input.bytes(), name));
    if (kind === "workbook") return { name, read: await workbook(name, chunks) };
    return { name, text: await reader(name).text(chunks) };
  } finally {
    await input.close();
  }
}

/** A workbook's ids: the column its header row names, or its one column when that row is an id. */
async function readWorkbook(
  name: string,
  chunks: AsyncIterable<Uint8Array>,
  flags: IdFlags,
  sheet: string | undefined,
): Promise<Read> {
  const { WorkbookRecords } = await import("./workbook.js");
  const wb = new WorkbookRecords({ name, sheet });
  const blocks = wb.blocks(chunks);
  const head = await blocks.next();
  const sheetName = wb.sheet?.name ?? "";
  if (head.done) throw new UsageError(`Sheet "${sheetName}" of ${name} holds no externalIds.`);
  const first = head.value[0]!;
  const entries: Entry[] = [];
  const filled = first.cells.flatMap((c, i) => (c.trim() === "" ? [] : [i]));
  let col: number;
  let from: string;
  try {
    col = mapColumns(name, first.cells, flags, { fields: ["externalId"] }).index.externalId!;
    from = `sheet "${sheetName}", column "${first.cells[col]}"`;
  } catch (err) {
    if (flags.size > 0 || filled.length !== 1) throw err;
    col = filled[0]!; // one column and no header: the first row is an id
    from = `sheet "${sheetName}", column ${wb.places.field(first.line, col).split("!")[1]!.replace(/\d+$/, "")}, no header`;
    entries.push(entryOf(first, col, wb.places));
  }
  for await (const block of blocks)
    for (const r of block) {
      const e = entryOf(r, col, wb.places);
      if (e.id !== "" || e.bad) entries.push(e);
    }
  return { entries, format: "xlsx", from };
}

function entryOf(r: CsvRecord, col: number, places: Places): Entry {
  const bad = r.bad?.find((b) => b.col === col)?.why;
  const id = (r.cells[col] ?? "").trim();
  return { id, line: r.line, at: places.field(r.line, col), ...(bad ? { bad } : {}) };
}

/** One id per line; a first line naming the id column ("externalId", "Creator ID", ...) is a header. */
function readLines(name: string, lines: string[], firstIdx: number, flags: IdFlags): Read {
  const first = lines[firstIdx]!.trim();
  let mapped = flags.get("externalId");
  const position = mapped === undefined ? undefined : /^#(\d+)$/.exec(mapped.trim());
  if (position && loose(first) !== loose(mapped!)) {
    // One column: #1 is it (its first line is a header when it names the id column, as without the flag).
    if (position[1] !== "1")
      throw new UsageError(
        `--column externalId=${mapped}: ${name} is one id per line: it has one column, #1.`,
        "Drop --column for a plain list of ids.",
      );
    mapped = undefined;
  }
  const isHeader = mapped
    ? loose(first) === loose(mapped)
    : (() => {
        try {
          mapColumns(name, [first], new Map(), { fields: ["externalId"] });
          return true;
        } catch {
          return false;
        }
      })();
  if (mapped && !isHeader) {
    throw new UsageError(
      `--column externalId=${mapped}: ${name} is one id per line and its first line is "${first}", not "${mapped}".`,
      "Drop --column for a plain list of ids.",
    );
  }
  const entries: Entry[] = [];
  lines.forEach((l, i) => {
    if (i < firstIdx || (isHeader && i === firstIdx)) return; // before it: blank, or a sep= line
    const id = l.trim();
    if (id !== "") entries.push({ id, line: i + 1 });
  });
  return {
    entries,
    format: "lines",
    from: isHeader ? `one per line, after the header "${first}"` : "one per line",
  };
}

/** A CSV file: its header names the id column (or --column externalId=HEADER does). */
async function readCsv(
  name: string,
  text: string,
  how: { delimiter: string; quote: QuoteMode | undefined; note: ((line: string) => void) | undefined },
  holder: number,
  flags: IdFlags,
): Promise<Read> {
  const delimiter = how.delimiter;
  const csv = new CsvReader({ name, delimiter, quote: how.quote });
  const records = csv.recordsOf(
    (async function* () {
      yield text;
    })(),
  );
  const head = await records.next();
  const found = head.done ? [] : head.value.cells;
  let col: number;
  try {
    col = mapColumns(name, found, flags, { fields: ["externalId"], delimiter }).index.externalId!;
  } catch (err) {
    // Identical column names: that error gives the positions to choose from.
    if (!(err instanceof UsageError) || flags.size > 0 || /by its position/.test(err.hint ?? "")) throw err;
    throw new UsageError(
      `${name} is CSV (line ${holder + 1} holds ${delimiterName(delimiter)}), so its first line must name the id column; its columns are: ${found.map((h) => `"${h}"`).join(", ")}.`,
      /did you mean/i.test(err.hint ?? "")
        ? err.hint
        : `Name the column "externalId" (or "Creator ID", "id"), map it with --column externalId=HEADER, or give one id per line with no ${delimiterName(delimiter)} in it.`,
    );
  }
  const entries: Entry[] = [];
  for await (const r of records) {
    const id = unescapeFormulaCell((r.cells[col] ?? "").trim());
    if (id !== "") entries.push({ id, line: r.line });
  }
  if (csv.footer) how.note?.(footerNote(csv.footer, "the id list"));
  return {
    entries,
    format: "csv",
    from: `CSV column "${found[col]!}", fields separated by ${delimiterName(delimiter)}`,
  };
}

/** Refuses the list when any id is one the service would refuse (all of them named, up to 10). */
function checkIds(name: string, entries: Entry[]): void {
  const bad = entries.flatMap((e) => {
    const p = e.bad ?? idProblem(e.id);
    return p ? [`  ${where(e)}: ${show(e.id)} ${p}`] : [];
  });
  if (bad.length) {
    throw new UsageError(
      `${name} holds ${bad.length} invalid externalId${bad.length === 1 ? "" : "s"}:\n${bad.slice(0, 10).join("\n")}${bad.length > 10 ? `\n  … and ${bad.length - 10} more` : ""}`,
    );
  }
}

/** Notes the ids that are not in Unicode NFC (sent as they are: the service compares ids exactly). */
function warnNotNfc(entries: Entry[], note: ((line: string) => void) | undefined): void {
  let count = 0;
  for (const e of entries) {
    const n = notNfc(e.id);
    if (!n) continue;
    if (count++ < 10) note?.(`${where(e)}: externalId ${showId(e.id)} ${nfcProblem(n.cp)}; sent as it is.`);
  }
  if (count > 10) note?.(`... and ${count - 10} more externalIds not in Unicode NFC.`);
}

/** Parses an id list (file path or "-" for stdin). Usage errors name the line. */
export async function readIdList(path: string, stdin: Readable, o: IdListOptions = {}): Promise<IdList> {
  const flags = parseColumnFlags(o.column ?? [], ["externalId"]);
  const encoding = o.encoding === undefined ? undefined : checkEncoding(o.encoding);
  const forced = parseDelimiter(o.delimiter);
  const quote = parseQuote(o.quote);
  const input = await readInput(
    path,
    stdin,
    (n) => {
      refuseSheet({ name: n, sheet: o.sheet });
      return new CsvReader({ name: n, encoding, delimiter: forced, note: o.note });
    },
    (n, chunks) => {
      noteTextFlags({ name: n, encoding, delimiter: forced, quote, note: o.note });
      return readWorkbook(n, chunks, flags, o.sheet);
    },
  );
  const name = input.name;
  const { entries, format, from } =
    input.read ?? (await readTextList(name, input.text!, { forced, quote, note: o.note }, flags));
  checkIds(name, entries);
  warnNotNfc(entries, o.note);
  const seen = new Set<string>();
  for (const e of entries) seen.add(e.id);
  if (seen.size === 0)
    throw new UsageError(
      `${name} holds no externalIds${format === "lines" ? "" : " in its externalId column"}.`,
    );
  const ids = [...seen];
  const sample = ids.slice(0, SAMPLE).map(show).join(", ");
  o.note?.(
    `${name}: read ${entries.length.toLocaleString("en-US")} id${entries.length === 1 ? "" : "s"} (${from}): ${sample}${ids.length > SAMPLE ? `, … ${show(ids[ids.length - 1]!)}` : ""}.`,
  );
  return { ids, read: entries.length, duplicates: entries.length - seen.size, format };
}

/** The ids of a text list: one per line, or CSV with an id column. */
async function readTextList(
  name: string,
  text: string,
  read: { forced: string | undefined; quote: QuoteMode | undefined; note: IdListOptions["note"] },
  flags: IdFlags,
): Promise<Read> {
  const { forced, quote, note } = read;
  const lines = text.split(/\r\n|\r|\n/);
  // Excel's first line "sep=;" names the delimiter; it is not the header (--delimiter wins over it).
  const sep = sepDelimiter(lines[0] ?? "");
  if (sep !== undefined && forced !== undefined && forced !== sep)
    note?.(
      `${name}: its first line says sep=${sep === "\t" ? "<tab>" : sep}, but --delimiter says ${delimiterName(forced)}: fields are read as separated by ${delimiterName(forced)} (the flag wins).`,
    );
  const start = sep === undefined ? 0 : 1;
  const firstIdx = lines.findIndex((l, i) => i >= start && l.trim() !== "");
  if (firstIdx < 0) throw new UsageError(`${name} holds no externalIds.`);

  const candidates = [",", ";", "\t", "|"];
  const delimiter =
    forced ??
    sep ??
    detectDelimiter(lines[firstIdx]!, quote !== "none") ??
    candidates.find((d) => lines.some((l, i) => i >= start && l.includes(d))) ??
    undefined;
  const holder =
    delimiter === undefined ? -1 : lines.findIndex((l, i) => i >= start && l.includes(delimiter));
  return holder < 0
    ? readLines(name, lines, firstIdx, flags)
    : await readCsv(name, text, { delimiter: delimiter!, quote, note }, holder, flags);
}
