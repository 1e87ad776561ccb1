// Date-range parameters (spec: Date ranges, Limits: Range length), shared by the CLI's flag checks,
// range-mode redemptions and the reports. No zod here: the CLI's declarations import this eagerly.
import { LIMITS } from "./limits.js";

/** Date-range presets (spec: Date ranges). The default is `30d`. */
export const RANGE_PRESETS = ["today", "7d", "30d", "90d", "this-month", "last-month"] as const;
export type RangePreset = (typeof RANGE_PRESETS)[number];
export const DEFAULT_PRESET: RangePreset = "30d";
/** What `range.preset` says: a preset, or `custom` for explicit dates. */
export type RangePresetEcho = RangePreset | "custom";

/** True for a real calendar day `YYYY-MM-DD` (2025-02-30 is refused). */
export function isCalendarDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === s;
}

/** Days from `from` through `through`, both included (calendar arithmetic, no time zone involved). */
export function inclusiveDays(from: string, through: string): number {
  return Math.round((Date.parse(`${through}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

export interface RangeInput {
  preset?: string | undefined;
  from?: string | undefined;
  through?: string | undefined;
}

/**
 * The request-side rules of a date range, as field → messages (empty when valid):
 * a known preset; real calendar days; `from` and `through` together; `through` not before `from`;
 * no preset together with dates; at most `maxDays` days (366 for capped endpoints, none otherwise).
 * `name` names the fields in the messages (the CLI's flags; the API's fields by default).
 */
export function rangeProblems(
  r: RangeInput,
  opts: { maxDays?: number | null; name?: (field: string) => string } = {},
): Record<string, string[]> {
  const n = opts.name ?? ((f: string) => f);
  const out: Record<string, string[]> = {};
  const add = (f: string, m: string) => {
    const list = out[f] ?? [];
    list.push(m);
    out[f] = list;
  };
  if (r.preset !== undefined && !(RANGE_PRESETS as readonly string[]).includes(r.preset))
    add("preset", `must be one of ${RANGE_PRESETS.join(", ")}`);
  if (r.preset !== undefined && (r.from !== undefined || r.through !== undefined))
    add("preset", `must not be combined with ${n("from")} or ${n("through")}`);
  for (const f of ["from", "through"] as const) {
    const v = r[f];
    if (v !== undefined && !isCalendarDay(v)) add(f, "must be a calendar day YYYY-MM-DD");
  }
  if (r.from !== undefined && r.through === undefined) add("through", `is required with ${n("from")}`);
  if (r.through !== undefined && r.from === undefined) add("from", `is required with ${n("through")}`);
  if (
    r.from !== undefined &&
    r.through !== undefined &&
    isCalendarDay(r.from) &&
    isCalendarDay(r.through) &&
    !out.from &&
    !out.through
  ) {
    if (r.through < r.from) add("through", `must be on or after ${n("from")}`);
    else {
      const max = opts.maxDays === undefined ? LIMITS.rangeDaysMax : opts.maxDays;
      if (max !== null && inclusiveDays(r.from, r.through) > max)
        add("through", `the range must be at most ${max} days including both ends`);
    }
  }
  return out;
}
