// The roster file format: which column holds which creator field, and turning one record into a
// checked batch item (with the shared rules of src/spec/creators.ts) or the reasons it is rejected.
import type { BatchCreator } from "../api/creators.js";
import { checkCreatorWrite, fastCreatorBatchItem, fastCreatorField } from "../spec/creators.js";
import { codePointName, escapeOne, firstInvisible, uPlus } from "../io/visible.js";
import { type ColumnMap, ROSTER_FIELDS, type RosterField, withoutAccents } from "./headers.js";
import { unescapeFormulaCell } from "./write.js";

export { type ColumnMap, mapColumns, parseColumnFlags, ROSTER_FIELDS, type RosterField } from "./headers.js";

/** The header of the import format (and of `roster export`). */
export const ROSTER_HEADER: readonly string[] = ROSTER_FIELDS;

/** The words of an `active` cell, lower case and without accents: English, Spanish, French, German, Portuguese. */
const TRUE_WORDS = new Set([
  ...["true", "yes", "y", "1", "active", "enabled"],
  ...["si", "activo", "activa"],
  ...["oui", "actif"],
  ...["ja", "aktiv"],
  ...["sim", "ativo", "ativa"],
]);
const FALSE_WORDS = new Set([
  ...["false", "no", "n", "0", "inactive", "disabled"],
  ...["inactivo", "inactiva"],
  ...["non", "inactif"],
  ...["nein", "inaktiv"],
  ...["nao", "inativo", "inativa"],
]);
const ACTIVE_WORDS =
  "true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, or yes/no or active/inactive in Spanish, French, German or Portuguese";

/**
 * Parses an `active` cell: true/false, yes/no, y/n, 1/0, active/inactive, enabled/disabled, and
 * sí/no, activo/inactivo, oui/non, actif/inactif, ja/nein, aktiv/inaktiv, sim/não, ativo/inativo
 * (any case, accents as typed or not).
 */
export function parseActiveCell(cell: string): boolean | undefined {
  if (cell === "true") return true; // the common spellings first, without trimming or lowering
  if (cell === "false") return false;
  const v = cell.trim().toLowerCase();
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  // Accents do not count ("sí", "si"; "não", "nao"), except on one letter: "ñ" is not "n".
  if (!/[^\u0000-\u007f]/.test(v)) return undefined;
  const plain = withoutAccents(v);
  if (plain.length < 2) return undefined;
  if (TRUE_WORDS.has(plain)) return true;
  if (FALSE_WORDS.has(plain)) return false;
  return undefined;
}

/** C0 control characters except tab, CR and LF (those two are "one line" rules of the service). */
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

/**
 * Why a cell from a file cannot be sent: a control character (NUL and the rest of C0 except tab).
 * The service's rules do not name them, so this is the client's own check: such a creator could not
 * be named on a command line, and the character would travel into every export.
 */
function controlCharReason(value: string): string | undefined {
  const m = CONTROL_RE.exec(value);
  return m ? controlReason(m[0].charCodeAt(0), m.index + 1) : undefined;
}

/** "holds a control character (U+0000, NUL) at position 3". */
const controlReason = (cp: number, position: number) =>
  `holds a control character (${uPlus(cp)}${cp === 0 ? ", NUL" : ""}) at position ${position}`;

const isBidi = (cp: number) =>
  (cp >= 0x202a && cp <= 0x202e) ||
  (cp >= 0x2066 && cp <= 0x2069) ||
  cp === 0x200e ||
  cp === 0x200f ||
  cp === 0x061c;

/**
 * Why an externalId cannot be sent: it holds a control character (C0, tab included, or C1), an
 * invisible one (zero-width, word joiner, a byte order mark inside it) or one that changes the
 * direction of the text (bidi controls). The service's rules do not name them (it would store such an
 * id as it is); this is the client's own rule: such an id looks like another one, or like nothing,
 * wherever it is shown, and cannot be typed on a command line. CR and LF are the service's one-line
 * rule. `id` is the trimmed id (the service trims it too, a byte order mark included).
 */
export function idTextReason(id: string): string | undefined {
  const f = firstInvisible(id);
  if (!f) return undefined;
  const { cp, position } = f;
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return controlReason(cp, position);
  const kind = isBidi(cp) ? "a direction-changing character" : "an invisible character";
  return `holds ${kind} (${codePointName(cp)}) at position ${position}`;
}

/** Characters below U+0300 are all stable under NFC: text without others is in NFC already. */
const MAYBE_NOT_NFC_RE = /[^\u0000-\u02ff]/;

/**
 * An id that is not in Unicode NFC (a letter and its accent apart, as macOS and some exports write
 * it): `nfc` is its normal form, `cp` the first code point that makes the difference. Undefined for
 * an id in NFC (any id of ASCII or Latin-1 letters is, after one regular-expression test).
 */
export function notNfc(id: string): { nfc: string; cp: number } | undefined {
  if (!MAYBE_NOT_NFC_RE.test(id)) return undefined;
  const nfc = id.normalize("NFC");
  if (nfc === id) return undefined;
  let i = 0;
  while (i < id.length && id.charCodeAt(i) === nfc.charCodeAt(i)) i++;
  // The difference starts at a base letter whose mark follows, or at a character NFC replaces.
  const mark = /\p{M}/u.exec(id.slice(i));
  return { nfc, cp: (mark ? mark[0] : String.fromCodePoint(id.codePointAt(i)!)).codePointAt(0)! };
}

/** An id as shown in a message: JSON-quoted, its combining marks written as \u0301 so they can be seen. */
export function showId(id: string): string {
  return JSON.stringify(id).replace(/\p{M}/gu, escapeOne);
}

/** "is not in Unicode NFC (U+0301 COMBINING ACUTE ACCENT)". */
export function nfcProblem(cp: number): string {
  return `is not in Unicode NFC (${codePointName(cp)})`;
}

/**
 * A row must have as many fields as the header. Trailing columns whose header is blank (Excel writes
 * `a,b,,`) may be missing, and extra cells past the header may be there when blank. Nothing else is
 * guessed.
 */
export function fieldCountReason(
  cells: readonly string[],
  headers: readonly string[],
  field: (col: number) => string = (col) => `field ${col + 1}`,
): string | undefined {
  const width = headers.length;
  if (cells.length === width) return undefined;
  let named = width;
  while (named > 0 && headers[named - 1]!.trim() === "") named--;
  if (cells.length < named) {
    const missing = headers.slice(cells.length, named).filter((h) => h.trim() !== "");
    return `row has ${cells.length} field${cells.length === 1 ? "" : "s"}; the header has ${width} (missing: ${missing.join(", ")})`;
  }
  const extra = cells.findIndex((c, i) => i >= width && c.trim() !== "");
  if (extra >= 0) {
    const v = cells[extra]!.trim();
    return `row has ${cells.length} fields; the header has ${width} (${field(extra)} is "${v.length > 30 ? `${v.slice(0, 30)}…` : v}")`;
  }
  return undefined;
}

export interface RowCheck {
  /** The trimmed externalId cell ("" when blank or missing). */
  externalId: string;
  /** What to send, when the row passes. */
  item?: BatchCreator;
  reasons: string[];
}

const TEXT_FIELDS = ["externalId", "name", "email", "handle"] as const;

const fieldOrder = (reason: string) => {
  const i = ROSTER_FIELDS.indexOf(reason.split(":")[0] as RosterField);
  return i < 0 ? ROSTER_FIELDS.length : i;
};

/**
 * Checks one record. Blank cells keep the stored value (the field is omitted), except that with
 * `clearEmpty` a blank email or handle clears it (sent as null). A blank name is always omitted: a
 * name cannot be cleared.
 */
export function checkRosterRow(
  cells: readonly string[],
  map: ColumnMap,
  opts: { clearEmpty: boolean; field?: ((col: number) => string) | undefined },
): RowCheck {
  // Each field's cell once (a mapped column missing from a short row reads as "").
  const at = (i: number | undefined) => (i === undefined ? undefined : unescapeFormulaCell(cells[i] ?? ""));
  const index = map.index;
  const values = {
    externalId: at(index.externalId),
    name: at(index.name),
    email: at(index.email),
    handle: at(index.handle),
  };
  const externalId = (values.externalId ?? "").trim();
  const reasons: string[] = [];
  const fieldCount = fieldCountReason(cells, map.headers, opts.field);
  if (fieldCount) return { externalId, reasons: [fieldCount] };
  for (const f of TEXT_FIELDS) {
    const v = values[f];
    const why =
      v === undefined ? undefined : f === "externalId" ? idTextReason(v.trim()) : controlCharReason(v);
    if (why) reasons.push(`${f}: ${why}`);
  }
  const raw: Record<string, unknown> = { externalId: values.externalId ?? "" };
  const name = values.name;
  if (name !== undefined && name.trim() !== "") raw.name = name;
  for (const f of ["email", "handle"] as const) {
    const v = values[f];
    if (v === undefined) continue;
    if (v.trim() !== "") raw[f] = v;
    else if (opts.clearEmpty) raw[f] = null;
  }
  const active = at(index.active);
  if (active !== undefined && active.trim() !== "") {
    const b = parseActiveCell(active);
    if (b === undefined)
      reasons.push(`active: must be ${ACTIVE_WORDS} (found "${active.trim().slice(0, 40)}")`);
    else raw.active = b;
  }
  // Plain-code rules first; the schema (with its exact messages) only for a row they do not pass.
  // (Its item has no undefined fields and no null name: a blank name is never in `raw`.)
  const fast = reasons.length ? undefined : fastCreatorBatchItem(raw as { externalId: string });
  if (fast) return { externalId: fast.externalId, item: fast as BatchCreator, reasons: [] };
  const checked = checkCreatorWrite(raw, { withExternalId: true });
  if (!checked.ok) reasons.push(...checked.reasons.filter((r) => !reasons.includes(r)));
  if (reasons.length) {
    reasons.sort((a, b) => fieldOrder(a) - fieldOrder(b));
    return { externalId, reasons };
  }
  if (!checked.ok) return { externalId, reasons };
  const v = checked.value;
  const item: BatchCreator = { externalId: v.externalId };
  if (v.name !== undefined && v.name !== null) item.name = v.name;
  if (v.email !== undefined) item.email = v.email;
  if (v.handle !== undefined) item.handle = v.handle;
  if (v.active !== undefined) item.active = v.active;
  return { externalId: v.externalId, item, reasons: [] };
}

// ---- the fast path of a roster import ----
// Most rows of a roster are plain: the right number of cells, no formula escape, no character that
// JSON escapes or the rules look at twice. For those, `rosterRowJson` checks the row with the shared
// plain-code rules (fastCreatorField) and writes the batch item's JSON text straight from the cells:
// no intermediate objects. Anything else (undefined) goes through checkRosterRow, which gives the
// exact reasons. test/roster/row-json.test.ts holds both paths to the same items and bytes.

/** A character JSON.stringify escapes (or a lone surrogate), a line end the rules look at, or the C0 controls. */
const NOT_PLAIN_RE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
/** The same for the externalId cell, and the characters idTextReason refuses (one test for both). */
const NOT_PLAIN_ID_RE =
  /["\\\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ud800-\udfff\ufeff]/;

/** The cell of a mapped column when it can be written as JSON text as it is (undefined: not plain). */
function plainCell(cells: readonly string[], i: number | undefined, re = NOT_PLAIN_RE): string | undefined {
  if (i === undefined) return "";
  const v = cells[i] ?? "";
  return v.charCodeAt(0) === 0x27 || re.test(v) ? undefined : v;
}

/**
 * A plain row that passes the rules: returns its trimmed externalId and appends the JSON text of its
 * batch item to `out` (after a comma when `comma`), in parts (joined, the bytes
 * `JSON.stringify(checkRosterRow(...).item)` gives). Undefined, with `out` as it was: checkRosterRow
 * decides.
 */
export function rosterRowJson(
  cells: readonly string[],
  map: ColumnMap,
  clearEmpty: boolean,
  out: string[],
  comma = false,
): string | undefined {
  const ix = map.index;
  if (cells.length !== map.headers.length || ix.externalId === undefined) return undefined;
  const id = plainCell(cells, ix.externalId, NOT_PLAIN_ID_RE);
  const externalId = id === undefined ? undefined : fastCreatorField.externalId(id);
  if (externalId === undefined) return undefined;
  const mark = out.length;
  out.push(comma ? ',{"externalId":"' : '{"externalId":"', externalId);
  // `open`: the last part is a string value whose closing quote is still to be written (it is
  // written with the next constant part: fewer parts to join).
  let open = true;
  const name = plainCell(cells, ix.name);
  if (name === undefined) return undo(out, mark);
  if (name.trim() !== "") {
    const v = fastCreatorField.name(name);
    if (v === undefined) return undo(out, mark);
    out.push('","name":"', v);
  }
  for (const f of ["email", "handle"] as const) {
    const cell = plainCell(cells, ix[f]);
    if (cell === undefined) return undo(out, mark);
    if (cell.trim() === "") {
      if (clearEmpty && ix[f] !== undefined) {
        out.push(PART[f][open ? 2 : 3]);
        open = false;
      }
      continue;
    }
    const v = fastCreatorField[f](cell);
    if (v === undefined) return undo(out, mark);
    out.push(PART[f][open ? 0 : 1], v);
    open = true;
  }
  const active = activeCell(cells, ix.active);
  if (active === null) return undo(out, mark);
  out.push(active === undefined ? (open ? '"}' : "}") : PART.active[(open ? 0 : 2) + (active ? 0 : 1)]!);
  return externalId;
}

/** The constant parts of rosterRowJson: after an open string value (with its closing quote) or not. */
const PART = {
  email: ['","email":"', ',"email":"', '","email":null', ',"email":null'],
  handle: ['","handle":"', ',"handle":"', '","handle":null', ',"handle":null'],
  active: ['","active":true}', '","active":false}', ',"active":true}', ',"active":false}'],
} as const;

/** rosterRowJson's `active`: the value, undefined (blank or no column), or null (checkRosterRow decides). */
function activeCell(cells: readonly string[], i: number | undefined): boolean | undefined | null {
  if (i === undefined) return undefined;
  const cell = cells[i] ?? "";
  if (cell.charCodeAt(0) === 0x27) return null;
  if (cell === "" || cell.trim() === "") return undefined;
  return parseActiveCell(cell) ?? null;
}

function undo(out: string[], mark: number): undefined {
  out.length = mark;
  return undefined;
}
