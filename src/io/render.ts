// Lists and records: a table on a terminal, TSV when piped, JSON with --json. With --fields or --jq
// a command prints JSON (io.json is true) and the Io shapes it (io.ts, shape.ts), so every list,
// get and report printed here gets them.
import Table from "cli-table3";
import type { Io } from "./io.js";

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** Text of one cell: null/undefined become "-" in tables and "" in TSV. */
export function cellText(v: unknown, forTable: boolean): string {
  if (v === null || v === undefined) return forTable ? "-" : "";
  if (typeof v === "boolean") return v ? "yes" : "no";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** TSV cells must not hold tabs or newlines. */
export function tsvCell(s: string): string {
  return s.replace(/[\t\r\n]+/g, " ");
}

export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], color: boolean): string {
  const table = new Table({
    head: columns.map((c) => c.header),
    style: { head: color ? ["bold"] : [], border: color ? ["grey"] : [] },
    // No rule between body rows: compact, like gh's tables.
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
  });
  for (const row of rows) table.push(columns.map((c) => cellText(c.value(row), true)));
  return `${table.toString()}\n`;
}

export function renderTsv<T>(rows: readonly T[], columns: readonly Column<T>[], header = true): string {
  const lines: string[] = [];
  if (header) lines.push(columns.map((c) => c.header).join("\t"));
  for (const row of rows) lines.push(columns.map((c) => tsvCell(cellText(c.value(row), false))).join("\t"));
  return lines.length ? `${lines.join("\n")}\n` : "";
}

/** Print a list: JSON array of the API objects with --json, else table/TSV of the columns. */
export function printList<T>(
  io: Io,
  rows: readonly T[],
  columns: readonly Column<T>[],
  emptyNote?: string,
): void {
  if (io.json) {
    io.outJson(rows);
    return;
  }
  if (rows.length === 0 && emptyNote) {
    io.err(emptyNote);
    if (!io.stdoutIsTTY) io.out(renderTsv(rows, columns));
    return;
  }
  io.out(io.stdoutIsTTY ? renderTable(rows, columns, io.color) : renderTsv(rows, columns));
}

/** Print one record: JSON object with --json, else "field  value" lines (TSV when piped). */
export function printRecord(io: Io, value: unknown, fields: readonly [string, unknown][]): void {
  if (io.json) {
    io.outJson(value);
    return;
  }
  if (io.stdoutIsTTY) {
    const width = Math.max(...fields.map(([k]) => k.length));
    io.out(`${fields.map(([k, v]) => `${k.padEnd(width)}  ${cellText(v, true)}`).join("\n")}\n`);
  } else {
    io.out(`${fields.map(([k, v]) => `${k}\t${tsvCell(cellText(v, false))}`).join("\n")}\n`);
  }
}
