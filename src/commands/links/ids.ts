// `links assign --ids FILE`: the creators to link, read with the same decoding, delimiter detection
// and header matcher as `roster import` (src/csv/). A file is one id per line only when no line holds
// the delimiter (taken from --delimiter, else the first line, else the first of , ; tab | found);
// then a first line that names an id column ("externalId", "Creator ID", "id", ...) is skipped as a
// header. Otherwise the file is CSV and its header must name the id column (or --column
// externalId=HEADER). Ids are trimmed, blank ones skipped, repeats dropped, and every id is checked
// as the service would (1 to 100 characters, one line) plus no control characters. The caller is
// told (`note`) what was read, with a sample, before anything is sent.
import type { Readable } from "node:stream";
import { checkEncoding } from "../../csv/decode.js";
import { delimiterName, loose, mapColumns, parseColumnFlags } from "../../csv/headers.js";
import { openInput } from "../../csv/input.js";
import { CsvReader, detectDelimiter, parseDelimiter } from "../../csv/read.js";
import { controlCharReason } from "../../csv/roster.js";
import { unescapeFormulaCell } from "../../csv/write.js";
import { UsageError } from "../../errors.js";
import { LIMITS } from "../../spec/limits.js";

/** Bigger than any useful id list (10,000 ids) with a few extra columns: refuse past it. */
const MAX_BYTES = 64 * 1024 * 1024;
const SAMPLE = 5;

export interface IdList {
  ids: string[];
  /** Ids read, repeats included. */
  read: number;
  duplicates: number;
  format: "csv" | "lines";
}

export interface IdListOptions {
  /** `--column externalId=HEADER` flags (only externalId can be mapped). */
  column?: string[] | undefined;
  /** `--encoding NAME`. */
  encoding?: string | undefined;
  /** `--delimiter C`. */
  delimiter?: string | undefined;
  /** Receives the lines to show on stderr (what was read, a sample). */
  note?: ((line: string) => void) | undefined;
}

/** Bytes of the input, refused past MAX_BYTES. */
async function* capped(chunks: AsyncIterable<Uint8Array>, name: string): AsyncGenerator<Uint8Array> {
  let size = 0;
  for await (const c of chunks) {
    size += c.length;
    if (size > MAX_BYTES) throw new UsageError(`${name} is too large (more than 64 MB) for an id list.`);
    yield c;
  }
}

function idProblem(id: string): string | undefined {
  if ([...id].length > LIMITS.creatorExternalIdMax)
    return `is longer than ${LIMITS.creatorExternalIdMax} characters`;
  if (/[\r\n\u2028\u2029]/.test(id)) return "is not one line";
  return controlCharReason(id);
}

const show = (id: string) => JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id);

/** Parses an id list (file path or "-" for stdin). Usage errors name the line. */
export async function readIdList(path: string, stdin: Readable, o: IdListOptions = {}): Promise<IdList> {
  const flags = parseColumnFlags(o.column ?? [], ["externalId"]);
  const encoding = o.encoding === undefined ? undefined : checkEncoding(o.encoding);
  const forced = parseDelimiter(o.delimiter);
  const input = await openInput(path, stdin, { passes: 1 });
  const name = input.name;

  // The whole list as text (it is small), decoded like any input file.
  const reader = new CsvReader({ name, encoding, delimiter: forced, note: o.note });
  let text: string;
  try {
    text = await reader.text(capped(input.bytes(), name));
  } finally {
    await input.close();
  }
  const lines = text.split(/\r\n|\r|\n/);
  const firstIdx = lines.findIndex((l) => l.trim() !== "");
  if (firstIdx < 0) throw new UsageError(`${name} holds no externalIds.`);

  const candidates = [",", ";", "\t", "|"];
  const delimiter =
    forced ??
    detectDelimiter(lines[firstIdx]!) ??
    candidates.find((d) => lines.some((l) => l.includes(d))) ??
    undefined;
  const holder = delimiter === undefined ? -1 : lines.findIndex((l) => l.includes(delimiter));

  const entries: { id: string; line: number }[] = [];
  let format: IdList["format"];
  let from: string;
  if (holder < 0) {
    format = "lines";
    const first = lines[firstIdx]!.trim();
    const mapped = flags.get("externalId");
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
    lines.forEach((l, i) => {
      if (isHeader && i === firstIdx) return;
      const id = l.trim();
      if (id !== "") entries.push({ id, line: i + 1 });
    });
    from = isHeader ? `one per line, after the header "${first}"` : "one per line";
  } else {
    format = "csv";
    const csv = new CsvReader({ name, delimiter: delimiter! });
    const records = csv.recordsOf(
      (async function* () {
        yield text;
      })(),
    );
    const head = await records.next();
    let col: number;
    try {
      col = mapColumns(name, head.done ? [] : head.value.cells, flags, {
        fields: ["externalId"],
        delimiter,
      }).index.externalId!;
    } catch (err) {
      if (!(err instanceof UsageError) || flags.size > 0) throw err;
      const found = head.done ? [] : head.value.cells;
      throw new UsageError(
        `${name} is CSV (line ${holder + 1} holds ${delimiterName(delimiter!)}), so its first line must name the id column; its columns are: ${found.map((h) => `"${h}"`).join(", ")}.`,
        /did you mean/i.test(err.hint ?? "")
          ? err.hint
          : `Name the column "externalId" (or "Creator ID", "id"), map it with --column externalId=HEADER, or give one id per line with no ${delimiterName(delimiter!)} in it.`,
      );
    }
    const header = head.done ? "" : head.value.cells[col]!;
    for await (const r of records) {
      const id = unescapeFormulaCell((r.cells[col] ?? "").trim());
      if (id !== "") entries.push({ id, line: r.line });
    }
    from = `CSV column "${header}", fields separated by ${delimiterName(delimiter!)}`;
  }

  const bad = entries.flatMap((e) => {
    const p = idProblem(e.id);
    return p ? [`  line ${e.line}: ${show(e.id)} ${p}`] : [];
  });
  if (bad.length) {
    throw new UsageError(
      `${name} holds ${bad.length} invalid externalId${bad.length === 1 ? "" : "s"}:\n${bad.slice(0, 10).join("\n")}${bad.length > 10 ? `\n  … and ${bad.length - 10} more` : ""}`,
    );
  }
  const seen = new Set<string>();
  for (const e of entries) seen.add(e.id);
  if (seen.size === 0)
    throw new UsageError(
      `${name} holds no externalIds${format === "csv" ? " in its externalId column" : ""}.`,
    );
  const ids = [...seen];
  const sample = ids.slice(0, SAMPLE).map(show).join(", ");
  o.note?.(
    `${name}: read ${entries.length.toLocaleString("en-US")} id${entries.length === 1 ? "" : "s"} (${from}): ${sample}${ids.length > SAMPLE ? `, … ${show(ids[ids.length - 1]!)}` : ""}.`,
  );
  return { ids, read: entries.length, duplicates: entries.length - seen.size, format };
}
