// Lists and records in every format: a table that fits on a terminal, TSV when piped, and with
// --format csv, json or ndjson (--json is the short form of --format json) whatever stdout is.
// With --fields or --jq a command prints JSON (io.json is true) and the Io shapes it (io.ts,
// shape.ts), so every list, get and report printed here gets them.
import type { Cell } from "../csv/write.js";
import { fitTable, type TableColumn, type TableLayout, truncate } from "./table.js";
import type { Io } from "./types.js";
import { visibleCell } from "./visible.js";
import { fmt, titleOf } from "./words.js";

/** What a cell holds, when a table shows it otherwise than machine formats do. */
/** How a table shows a column's values (money-words.ts: dollars, percent); machine formats keep the value. */
export type CellKind = (v: unknown) => string;

export interface Column<T> extends TableColumn {
  /** The column's name in TSV and CSV (the API's name); a table shows `title`. */
  header: string;
  value: (row: T) => unknown;
  /** The table's header in words; by default made from `header` ("codeLimit" → "Code limit"). */
  title?: string | undefined;
  /** money: "$1,234.50" in a table; rate: "66.3%". TSV, CSV and JSON keep the API's value. */
  kind?: CellKind | undefined;
  /** The JSON path of the value when `header` is not it: --fields accepts `header` for it. */
  field?: string | undefined;
}

/**
 * Text of one cell: null/undefined become "-" in tables and "" in TSV. A table's cell (a terminal's:
 * tables and "field  value" records) shows invisible and direction-changing characters escaped
 * (`\u202e`, visible.ts), whole numbers with thousands separators, money with its currency and
 * cents, ratios as percentages; TSV, CSV and JSON are data and keep the exact value.
 */
export function cellText(v: unknown, forTable: boolean, kind?: CellKind): string {
  if (v === null || v === undefined) return forTable ? "-" : "";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (forTable && kind) return kind(v);
  if (forTable && typeof v === "number" && Number.isSafeInteger(v)) return v < 0 ? `-${fmt(-v)}` : fmt(v);
  const text = typeof v === "object" ? JSON.stringify(v) : String(v);
  return forTable ? visibleCell(text) : text;
}

/** TSV cells must not hold tabs or newlines. */
export function tsvCell(s: string): string {
  return s.replace(/[\t\r\n]+/g, " ");
}

/** A table of the rows: sized to `layout.width` when given (a boolean is the colour, no limit). */
export function renderTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  layout: boolean | TableLayout,
): string {
  const o = typeof layout === "boolean" ? { color: layout } : layout;
  return fitTable(columns, cellTexts(rows, columns), o).text;
}

function cellTexts<T>(rows: readonly T[], columns: readonly Column<T>[]): string[][] {
  return rows.map((row) => columns.map((c) => tsvCell(cellText(c.value(row), true, c.kind))));
}

export function renderTsv<T>(rows: readonly T[], columns: readonly Column<T>[], header = true): string {
  const lines: string[] = [];
  if (header) lines.push(columns.map((c) => c.header).join("\t"));
  for (const row of rows) lines.push(columns.map((c) => tsvCell(cellText(c.value(row), false))).join("\t"));
  return lines.length ? `${lines.join("\n")}\n` : "";
}

/**
 * CSV of the rows (identifiers as text, formula-like cells escaped, as the exports write it); made
 * later because the CSV writer is loaded only when CSV is asked for.
 */
function outCsv(io: Io, header: readonly string[] | undefined, rows: readonly (readonly unknown[])[]): void {
  io.outLater(async () => {
    const { formatCsv } = await import("../csv/write.js");
    return formatCsv(rows as Cell[][], header);
  });
}

/** The table of the rows for this Io's terminal, headed in words; columns dropped to fit are named on stderr. */
export function outTable<T>(io: Io, rows: readonly T[], columns: readonly Column<T>[]): void {
  const titled = columns.map((c) => ({ ...c, header: c.title ?? titleOf(c.header) }));
  const t = fitTable(titled, cellTexts(rows, columns), { width: io.width, wide: io.wide, color: io.color });
  io.out(t.text);
  if (t.hidden.length) {
    const note = `--wide shows ${t.hidden.length} more column${t.hidden.length === 1 ? "" : "s"}: ${t.hidden.join(", ")}.`;
    io.err(io.width === undefined ? note : truncate(note, io.width));
  }
}

/** Rows in the Io's format (not JSON). `header`: the header row comes first (the first batch). */
function outRows<T>(io: Io, rows: readonly T[], columns: readonly Column<T>[], header = true): void {
  switch (io.format) {
    case "table":
      outTable(io, rows, columns);
      return;
    case "csv":
      outCsv(
        io,
        header ? columns.map((c) => c.header) : undefined,
        rows.map((r) => columns.map((c) => c.value(r))),
      );
      return;
    default:
      io.out(renderTsv(rows, columns, header));
  }
}

/** Tells the Io which column names --fields accepts for JSON paths ("codeLimit" → "codes.limit"). */
export function aliasColumns<T>(io: Io, columns: readonly Column<T>[]): void {
  const aliases: Record<string, string> = {};
  for (const c of columns) if (c.field !== undefined && c.field !== c.header) aliases[c.header] = c.field;
  io.fieldAliases(aliases);
}

/** Print a list: the API objects with --json/ndjson, else a table, TSV or CSV of the columns. */
export function printList<T>(
  io: Io,
  rows: readonly T[],
  columns: readonly Column<T>[],
  emptyNote?: string,
): void {
  if (io.json) {
    aliasColumns(io, columns);
    io.outJson(rows);
    return;
  }
  if (rows.length === 0 && emptyNote) {
    io.err(emptyNote);
    if (io.format !== "table") outRows(io, rows, columns);
    return;
  }
  outRows(io, rows, columns);
}

export interface ListWriter<T> {
  /** Prints one batch (a page) of rows; a table waits for every row. */
  rows(items: readonly T[]): void;
  /** Ends the list; answers the number of rows. `jsonTail`: the other keys of a JSON object list. */
  end(emptyNote?: string, jsonTail?: Record<string, unknown>): number;
}

/**
 * A list printed page by page (JSON, NDJSON, TSV and CSV stream; a table needs every row first).
 * `jsonKey`: JSON is an object whose array is under this key, the other keys given to end().
 * Nothing is written before the first page is handed over, so a list whose first read fails
 * leaves stdout empty.
 */
export function listWriter<T>(io: Io, columns: readonly Column<T>[], jsonKey?: string): ListWriter<T> {
  let count = 0;
  const held: T[] = [];
  const streamJson = io.json && io.format !== "ndjson";
  let opened = false;
  if (io.json) aliasColumns(io, columns);
  const open = () => {
    if (streamJson && !opened) io.out(jsonKey === undefined ? "[" : `{${JSON.stringify(jsonKey)}:[`);
    opened = true;
  };
  return {
    rows(items) {
      open();
      if (streamJson) for (const c of items) io.out(`${count++ === 0 ? "" : ","}${JSON.stringify(c)}`);
      else if (io.json) for (const c of items) io.out(`${JSON.stringify(c)}\n`);
      else if (io.format === "table") held.push(...items);
      else if (items.length) outRows(io, items, columns, count === 0);
      if (!streamJson) count += items.length;
    },
    end(emptyNote, jsonTail) {
      open();
      if (streamJson) io.out(jsonKey === undefined ? "]\n" : `]${objectTail(jsonTail ?? {})}}\n`);
      else if (io.format === "table") printList(io, held, columns, emptyNote);
      else if (count === 0 && !io.json) {
        if (emptyNote) io.err(emptyNote);
        outRows(io, [], columns, true);
      }
      return count;
    },
  };
}

/** `,"k":v` for each key, to close a JSON object after its array. */
function objectTail(o: Record<string, unknown>): string {
  return Object.entries(o)
    .map(([k, v]) => `,${JSON.stringify(k)}:${JSON.stringify(v ?? null)}`)
    .join("");
}

/** One line of a record: its name (the API's), its value, and how a table shows it. */
export type RecordField = readonly [string, unknown] | readonly [string, unknown, CellKind | undefined];

/** Print one record: a JSON object with --json, else "field  value" lines (TSV when piped, CSV as one row). */
export function printRecord(io: Io, value: unknown, fields: readonly RecordField[]): void {
  if (io.json) {
    io.outJson(value);
    return;
  }
  if (io.format === "csv") {
    outCsv(
      io,
      fields.map(([k]) => k),
      [fields.map(([, v]) => v)],
    );
  } else if (io.format === "table") {
    const width = Math.max(...fields.map(([k]) => k.length));
    const line = (k: string, v: unknown, kind?: CellKind) =>
      `${k.padEnd(width)}  ${tsvCell(cellText(v, true, kind))}`;
    const toWidth = (l: string) => (io.width === undefined ? l : truncate(l, io.width));
    io.out(`${fields.map(([k, v, kind]) => toWidth(line(k, v, kind))).join("\n")}\n`);
  } else {
    io.out(`${fields.map(([k, v]) => `${k}\t${tsvCell(cellText(v, false))}`).join("\n")}\n`);
  }
}
