// The roster file format: which column holds which creator field, and turning one record into a
// checked batch item (with the shared rules of src/spec/creators.ts) or the reasons it is rejected.
import type { BatchCreator } from "../api/creators.js";
import { UsageError } from "../errors.js";
import { checkCreatorWrite } from "../spec/creators.js";
import { unescapeFormulaCell } from "./write.js";

export const ROSTER_FIELDS = ["externalId", "name", "email", "handle", "active"] as const;
export type RosterField = (typeof ROSTER_FIELDS)[number];

/** The header of the import format (and of `roster export`). */
export const ROSTER_HEADER: readonly string[] = ROSTER_FIELDS;

export interface ColumnMap {
  /** Column index of each field found. */
  index: Partial<Record<RosterField, number>>;
  /** Number of columns in the header. */
  width: number;
  /** Headers no field uses. */
  ignored: string[];
}

const norm = (s: string) => s.trim().toLowerCase();
/** Automatic matching also ignores spaces, "_" and "-": "External ID" and "external_id" are externalId. */
const loose = (s: string) => norm(s).replace(/[\s_-]+/g, "");

function fieldNamed(name: string): RosterField | undefined {
  return ROSTER_FIELDS.find((f) => f.toLowerCase() === norm(name));
}

/** Parses repeated `--column FIELD=HEADER` flags. */
export function parseColumnFlags(flags: readonly string[]): Map<RosterField, string> {
  const out = new Map<RosterField, string>();
  for (const flag of flags) {
    const eq = flag.indexOf("=");
    const field = eq > 0 ? fieldNamed(flag.slice(0, eq)) : undefined;
    const header = eq > 0 ? flag.slice(eq + 1).trim() : "";
    if (eq <= 0 || header === "") {
      throw new UsageError(
        `--column "${flag}" is not FIELD=HEADER.`,
        `Example: --column externalId="Creator ID". Fields: ${ROSTER_FIELDS.join(", ")}.`,
      );
    }
    if (!field) {
      throw new UsageError(
        `--column "${flag}": "${flag.slice(0, eq)}" is not a roster field.`,
        `Fields: ${ROSTER_FIELDS.join(", ")}.`,
      );
    }
    if (out.has(field)) throw new UsageError(`--column maps ${field} twice.`);
    out.set(field, header);
  }
  return out;
}

const list = (hs: readonly string[]) => hs.map((h) => `"${h}"`).join(", ");

/** Matches the header row to the fields. Throws a UsageError the user can act on. */
export function mapColumns(
  path: string,
  headers: readonly string[],
  flags: Map<RosterField, string>,
): ColumnMap {
  const index: Partial<Record<RosterField, number>> = {};
  const used = new Set<number>();
  for (const [field, header] of flags) {
    const at = headers.findIndex((h) => norm(h) === norm(header));
    if (at < 0) {
      throw new UsageError(
        `--column ${field}=${header}: ${path} has no column "${header}".`,
        `Its columns are: ${list(headers)}.`,
      );
    }
    if (used.has(at)) throw new UsageError(`--column maps column "${headers[at]}" to two fields.`);
    index[field] = at;
    used.add(at);
  }
  for (const field of ROSTER_FIELDS) {
    if (flags.has(field)) continue;
    const matches = headers
      .map((h, i) => ({ h, i }))
      .filter(({ h, i }) => !used.has(i) && loose(h) === field.toLowerCase());
    if (matches.length > 1) {
      throw new UsageError(
        `${path} has ${matches.length} columns for ${field}: ${list(matches.map((m) => m.h))}.`,
        `Choose one with --column ${field}=HEADER.`,
      );
    }
    if (matches[0]) {
      index[field] = matches[0].i;
      used.add(matches[0].i);
    }
  }
  if (index.externalId === undefined) {
    throw new UsageError(
      `${path} has no externalId column. The columns found are: ${list(headers)}.`,
      'Name the column "externalId" or map it, e.g. --column externalId="Creator ID".',
    );
  }
  const ignored = headers.filter((h, i) => !used.has(i) && h.trim() !== "");
  return { index, width: headers.length, ignored };
}

const TRUE_WORDS = new Set(["true", "yes", "1", "y"]);
const FALSE_WORDS = new Set(["false", "no", "0", "n"]);

/** Parses an `active` cell: true/false, yes/no, 1/0 (any case). */
export function parseActiveCell(cell: string): boolean | undefined {
  const v = cell.trim().toLowerCase();
  if (TRUE_WORDS.has(v)) return true;
  if (FALSE_WORDS.has(v)) return false;
  return undefined;
}

export interface RowCheck {
  /** The trimmed externalId cell ("" when blank or missing). */
  externalId: string;
  /** What to send, when the row passes. */
  item?: BatchCreator;
  reasons: string[];
}

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
  opts: { clearEmpty: boolean },
): RowCheck {
  const cell = (f: RosterField): string | undefined => {
    const i = map.index[f];
    return i === undefined ? undefined : unescapeFormulaCell(cells[i] ?? "");
  };
  const externalId = (cell("externalId") ?? "").trim();
  const reasons: string[] = [];
  if (cells.length !== map.width) {
    const extraBlank = cells.length > map.width && cells.slice(map.width).every((c) => c.trim() === "");
    if (!extraBlank) {
      reasons.push(`row has ${cells.length} fields; the header has ${map.width}`);
      return { externalId, reasons };
    }
  }
  const raw: Record<string, unknown> = { externalId: cell("externalId") ?? "" };
  const name = cell("name");
  if (name !== undefined && name.trim() !== "") raw.name = name;
  for (const f of ["email", "handle"] as const) {
    const v = cell(f);
    if (v === undefined) continue;
    if (v.trim() !== "") raw[f] = v;
    else if (opts.clearEmpty) raw[f] = null;
  }
  const active = cell("active");
  if (active !== undefined && active.trim() !== "") {
    const b = parseActiveCell(active);
    if (b === undefined)
      reasons.push(`active: must be true/false, yes/no or 1/0 (found "${active.trim().slice(0, 40)}")`);
    else raw.active = b;
  }
  const checked = checkCreatorWrite(raw, { withExternalId: true });
  if (!checked.ok) reasons.push(...checked.reasons);
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
