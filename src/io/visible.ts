// Text people can see. Characters that show nothing or change the direction of what follows (bidi
// controls, zero-width characters, the byte order mark, C0/C1 controls) can make one id look like
// another, or reorder a line on screen. Terminal output (tables, records, messages, errors) shows
// them escaped, as `\u202e`; data formats (JSON, NDJSON, CSV, TSV, files) keep the exact text.
// The same set is what `roster import` and `links assign --ids` refuse in an externalId (csv/roster.ts).

/** The characters escaped in a table cell (tab, CR and LF are handled by the table: a space). */
const CELL_RE =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const CELL_RE_G = new RegExp(CELL_RE.source, "g");
/** The characters escaped in a message line: the same and CR (it would let text overwrite the line); tab and LF stay. */
const LINE_RE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;
const LINE_RE_G = new RegExp(LINE_RE.source, "g");
/**
 * The set in an id: every C0 control (tab too) and the rest of the set, except CR, LF, U+2028 and
 * U+2029, which the service's own "one line" rule refuses.
 */
const ID_RE =
  /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

const hex4 = (c: number) => c.toString(16).padStart(4, "0");
/** One character written as its escape: `\u202e`. */
export const escapeOne = (ch: string) => `\\u${hex4(ch.charCodeAt(0))}`;
/** A code point as Unicode writes it: "U+202E". */
export const uPlus = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** A table or record cell for a terminal: invisible and direction-changing characters as `\u202e`. */
export function visibleCell(text: string): string {
  return CELL_RE.test(text) ? text.replace(CELL_RE_G, escapeOne) : text;
}

/** A message line (or lines) for a terminal: the same, keeping tabs and line breaks. */
export function visibleLine(text: string): string {
  return LINE_RE.test(text) ? text.replace(LINE_RE_G, escapeOne) : text;
}

const NAMES: Record<number, string> = {
  1564: "ARABIC LETTER MARK",
  8203: "ZERO WIDTH SPACE",
  8204: "ZERO WIDTH NON-JOINER",
  8205: "ZERO WIDTH JOINER",
  8206: "LEFT-TO-RIGHT MARK",
  8207: "RIGHT-TO-LEFT MARK",
  8232: "LINE SEPARATOR",
  8233: "PARAGRAPH SEPARATOR",
  8234: "LEFT-TO-RIGHT EMBEDDING",
  8235: "RIGHT-TO-LEFT EMBEDDING",
  8236: "POP DIRECTIONAL FORMATTING",
  8237: "LEFT-TO-RIGHT OVERRIDE",
  8238: "RIGHT-TO-LEFT OVERRIDE",
  8288: "WORD JOINER",
  8289: "FUNCTION APPLICATION",
  8290: "INVISIBLE TIMES",
  8291: "INVISIBLE SEPARATOR",
  8292: "INVISIBLE PLUS",
  8294: "LEFT-TO-RIGHT ISOLATE",
  8295: "RIGHT-TO-LEFT ISOLATE",
  8296: "FIRST STRONG ISOLATE",
  8297: "POP DIRECTIONAL ISOLATE",
  65279: "BYTE ORDER MARK",
  0: "NUL",
  9: "CHARACTER TABULATION",
  10: "LINE FEED",
  13: "CARRIAGE RETURN",
  27: "ESCAPE",
  127: "DELETE",
  // The combining marks most often left apart by decomposed (NFD) text, as macOS writes it.
  768: "COMBINING GRAVE ACCENT",
  769: "COMBINING ACUTE ACCENT",
  770: "COMBINING CIRCUMFLEX ACCENT",
  771: "COMBINING TILDE",
  772: "COMBINING MACRON",
  774: "COMBINING BREVE",
  775: "COMBINING DOT ABOVE",
  776: "COMBINING DIAERESIS",
  778: "COMBINING RING ABOVE",
  779: "COMBINING DOUBLE ACUTE ACCENT",
  780: "COMBINING CARON",
  803: "COMBINING DOT BELOW",
  807: "COMBINING CEDILLA",
  808: "COMBINING OGONEK",
  12441: "COMBINING KATAKANA-HIRAGANA VOICED SOUND MARK",
  12442: "COMBINING KATAKANA-HIRAGANA SEMI-VOICED SOUND MARK",
};

/** "U+202E RIGHT-TO-LEFT OVERRIDE" (with the name when it is one of the few named here). */
export function codePointName(cp: number): string {
  const u = uPlus(cp);
  const name = NAMES[cp];
  return name ? `${u} ${name}` : u;
}

/**
 * The first character of `text` terminal output escapes (except line breaks), with its code point
 * and position (characters from 1).
 */
export function firstInvisible(text: string): { cp: number; position: number } | undefined {
  const m = ID_RE.exec(text);
  if (!m) return undefined;
  return { cp: m[0].charCodeAt(0), position: [...text.slice(0, m.index)].length + 1 };
}
