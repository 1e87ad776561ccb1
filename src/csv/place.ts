// Where a row or a cell of an input file is, as messages and the rejects file name it: "line 7" in a
// CSV file (the physical line), `Sheet1!A7:E7` (a whole row) or `Sheet1!C7` (one cell) in a workbook.
// Every message of an import or an id list that names a place goes through one of these.

export interface Places {
  /** A whole row: "line 7" / "Sheet1!A7:E7". */
  row(line: number): string;
  /** One field of a row (`col` from 0): "line 7" / "Sheet1!C7". */
  field(line: number, col: number): string;
  /** Spans of rows: "lines 2-1001, 2002-3001" / "Sheet1!A2:E1001, Sheet1!A2002:E3001". */
  spans(spans: readonly (readonly [number, number])[]): string;
  /** What a rejects file's `line` column holds: the line number / the row's range. */
  rejectsLine(line: number): string | number;
  /** The sheet, for a workbook (undefined for CSV). */
  readonly sheet?: string | undefined;
}

/** A CSV file's places: physical line numbers. */
export const LINES: Places = {
  row: (line) => `line ${line}`,
  field: (line) => `line ${line}`,
  spans: (spans) => `lines ${spans.map(([a, b]) => `${a}-${b}`).join(", ")}`,
  rejectsLine: (line) => line,
};

/** Column letters of a column index from 0: 0 → A, 25 → Z, 26 → AA. */
function columnLetters(col: number): string {
  let s = "";
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/** Column index from 0 of column letters ("C" → 2); -1 when not letters. */
export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) {
    const c = ch.charCodeAt(0) - 64;
    if (c < 1 || c > 26) return -1;
    n = n * 26 + c;
  }
  return n - 1;
}

/** A sheet name as Excel writes it in a reference: quoted ('My sheet'!A1) unless it is a plain word. */
function sheetRef(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) && !/^[A-Za-z]{1,3}\d+$/.test(name)
    ? name
    : `'${name.replace(/'/g, "''")}'`;
}

/** A workbook sheet's places; `width` is the header's number of columns (at least 1). */
export function sheetPlaces(sheet: string, width: number): Places {
  const s = sheetRef(sheet);
  const last = columnLetters(Math.max(width, 1) - 1);
  const range = (a: number, b: number) => `${s}!A${a}:${last}${b}`;
  return {
    sheet,
    row: (line) => range(line, line),
    field: (line, col) => `${s}!${columnLetters(col)}${line}`,
    spans: (spans) => spans.map(([a, b]) => range(a, b)).join(", "),
    rejectsLine: (line) => range(line, line),
  };
}
