// Terminal tables that fit: borderless like gh's (a bold header row, columns two spaces apart),
// sized to the terminal's width. When the natural table is wider, low-value columns (a UUID beside
// a reference) are dropped first, in their `drop` order; then headers wider than their cells are
// cut down to them, then the widest truncatable text columns are cut with an ellipsis; as a last
// resort every line is cut. --wide (or no width: piped output) shows everything as it is. Colour
// only in the header and in state cells.
import stringWidth from "string-width";
import { type Style, style } from "./colors.js";

/** Colour codes (SGR), which take no columns; string-width removes them as well. */
const SGR = /\u001b\[[0-9;]*m/g;

/**
 * Display columns of text, as string-width counts them. Printable ASCII (most cells), coloured or
 * not, is one column a character (string-width's own fast path); only other text reaches
 * string-width, whose loading builds a segmenter and Unicode regular expressions: the build defers
 * that to its first call (scripts/build.mjs), so most commands never pay for it.
 */
export function displayWidth(text: string): number {
  const plain = text.includes("\u001b") ? text.replace(SGR, "") : text;
  return /^[\x20-\x7e]*$/.test(plain) ? plain.length : stringWidth(text);
}

export interface TableColumn {
  header: string;
  /** Dropped when the table does not fit: 1 goes first, then 2, ...; absent: never dropped. */
  drop?: number | undefined;
  /** Cells may be cut with an ellipsis (long text: names, titles, URLs); others keep their width. */
  truncate?: boolean | undefined;
  /** The colour of a cell (states), by its text. */
  color?: ((text: string) => Style | undefined) | undefined;
}

export interface TableLayout {
  /** Terminal columns available; undefined: no limit. */
  width?: number | undefined;
  /** Show every column at full width, whatever the width. */
  wide?: boolean | undefined;
  color: boolean;
}

export interface FittedTable {
  text: string;
  /** Headers of the columns dropped to fit. */
  hidden: string[];
}

const GAP = 2;
/** A truncated column keeps at least this many characters (its header may be cut too). */
const MIN_TRUNCATED = 6;
/** Long text is cut to this many characters before any header is cut. */
const COMFORTABLE = 24;
const ELLIPSIS = "…";

/** Cuts text to `width` display columns, ending in an ellipsis when anything was cut. */
export function truncate(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width <= 0) return "";
  let out = "";
  let used = 0;
  for (const ch of text) {
    const w = displayWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return out + ELLIPSIS;
}

const totalWidth = (widths: readonly number[]) =>
  widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1);

/** Which columns to show: drops columns in their drop order until the natural widths fit. */
function visibleColumns(cols: readonly TableColumn[], natural: readonly number[], width: number): number[] {
  const shown = cols.map((_, i) => i);
  const order = cols
    .map((c, i) => ({ i, drop: c.drop }))
    .filter((c): c is { i: number; drop: number } => c.drop !== undefined)
    .sort((a, b) => a.drop - b.drop || b.i - a.i);
  for (const { i } of order) {
    if (totalWidth(shown.map((j) => natural[j]!)) <= width) break;
    shown.splice(shown.indexOf(i), 1);
  }
  return shown;
}

/**
 * How narrow each column may get, step by step: long text is cut down to COMFORTABLE; then a header
 * wider than its cells is cut down to them (a count under "verifiedRedemptions" needs 2 columns, not
 * 19); then text down to MIN_TRUNCATED.
 */
function floorSteps(
  cols: readonly TableColumn[],
  content: readonly number[],
  natural: readonly number[],
): number[][] {
  const headers = natural.map((n, i) => Math.min(n, Math.max(content[i]!, MIN_TRUNCATED)));
  const text = (floor: number) =>
    cols.map((c, i) => (c.truncate ? Math.min(natural[i]!, floor) : natural[i]!));
  const cut = cols.map((c, i) => (c.truncate ? Math.min(natural[i]!, MIN_TRUNCATED) : headers[i]!));
  return [text(COMFORTABLE), headers.map((h, i) => Math.min(h, text(COMFORTABLE)[i]!)), cut];
}

/** Shrinks the widest column above its floor, one character at a time, until the table fits. */
function shrink(widths: number[], floors: readonly number[], shown: readonly number[], width: number): void {
  let excess = totalWidth(shown.map((i) => widths[i]!)) - width;
  while (excess > 0) {
    let widest = -1;
    for (const i of shown) {
      if (widths[i]! <= floors[i]!) continue;
      if (widest === -1 || widths[i]! > widths[widest]!) widest = i;
    }
    if (widest === -1) return;
    widths[widest]!--;
    excess--;
  }
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - displayWidth(text)));
}

/** Lays out a table of cell texts (one array per row) for a terminal. */
export function fitTable(
  cols: readonly TableColumn[],
  rows: readonly string[][],
  o: TableLayout,
): FittedTable {
  const content = cols.map((_, i) => Math.max(0, ...rows.map((r) => displayWidth(r[i]!))));
  const natural = cols.map((c, i) => Math.max(displayWidth(c.header), content[i]!));
  const limit = o.wide ? undefined : o.width;
  const shown = limit === undefined ? cols.map((_, i) => i) : visibleColumns(cols, natural, limit);
  const widths = [...natural];
  if (limit !== undefined) {
    // By content, not by header: long headers give way before any cell is cut.
    for (const floors of floorSteps(cols, content, natural)) shrink(widths, floors, shown, limit);
  }
  const line = (cells: readonly string[], head: boolean) => {
    const parts = shown.map((i, k) => {
      const cut = truncate(cells[i]!, widths[i]!);
      const text = k === shown.length - 1 ? cut : pad(cut, widths[i]!);
      if (head) return style(o, "bold", text);
      const s = cols[i]!.color?.(cells[i]!);
      return s ? style(o, s, text) : text;
    });
    const joined = parts.join(" ".repeat(GAP)).trimEnd();
    // Last resort (columns that may not be cut): the line itself is cut, never wrapped.
    return limit !== undefined && displayWidth(joined) > limit
      ? truncate(stripped(joined, o), limit)
      : joined;
  };
  const lines = [
    line(
      cols.map((c) => c.header),
      true,
    ),
    ...rows.map((r) => line(r, false)),
  ];
  return {
    text: `${lines.join("\n")}\n`,
    hidden: cols.filter((_, i) => !shown.includes(i)).map((c) => c.header),
  };
}

/** A line's text without its colour codes (cutting through an escape sequence would corrupt it). */
function stripped(text: string, o: TableLayout): string {
  return o.color ? text.replace(/\u001b\[[0-9;]*m/g, "") : text;
}

const GOOD = new Set(["active", "available", "counted", "enabled", "delivered", "succeeded", "yes"]);
const WAITING = new Set([
  "draft",
  "paused",
  "not_yet_started",
  "temporarily_unavailable",
  "pending",
  "running",
  "failing",
]);
const GONE = new Set([
  "ended",
  "expired",
  "excluded",
  "disabled",
  "not_distributable",
  "failed",
  "test_code",
  "no",
]);

/** The colour of a state cell: green for live states, yellow for waiting ones, dim for ended ones. */
export function stateStyle(text: string): Style | undefined {
  if (GOOD.has(text)) return "green";
  if (WAITING.has(text)) return "yellow";
  if (GONE.has(text)) return "dim";
  return undefined;
}
