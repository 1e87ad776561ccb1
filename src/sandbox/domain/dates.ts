// Date ranges of the sandbox's queries: read from a request's query string and resolved against the
// sandbox clock, or refused with the spec's 400 (spec: Date ranges). The day arithmetic itself is
// shared with the CLI: src/spec/days.ts.
import {
  DEFAULT_PRESET,
  type RangeInput,
  type RangePreset,
  type RangePresetEcho,
  rangeProblems,
} from "../../spec/reports.js";
import { presetRange } from "../../spec/days.js";
import { invalid } from "../errors.js";

export interface ResolvedRange {
  from: string;
  through: string;
  timeZone: string;
  preset: RangePresetEcho;
}

/** Reads preset/from/through from a query (an empty value counts as absent). */
export function rangeInput(q: URLSearchParams): RangeInput {
  const get = (n: string) => {
    const v = q.get(n);
    return v === null || v === "" ? undefined : v.trim();
  };
  return { preset: get("preset"), from: get("from"), through: get("through") };
}

/**
 * Resolves a range query: validates it (400 `validation_failed` with details) and computes a
 * preset's days on the sandbox clock. maxDays: 366 for capped endpoints, null for no cap.
 */
export function resolveRange(
  input: RangeInput,
  nowMs: number,
  tz: string,
  opts: { maxDays?: number | null } = {},
): ResolvedRange {
  const problems = rangeProblems(input, opts);
  if (Object.keys(problems).length > 0) {
    const first = Object.entries(problems)[0]!;
    throw invalid(`The date range is not valid: ${first[0]} ${first[1][0]}.`, problems);
  }
  if (input.from !== undefined && input.through !== undefined)
    return { from: input.from, through: input.through, timeZone: tz, preset: "custom" };
  const preset = (input.preset ?? DEFAULT_PRESET) as RangePreset;
  return { ...presetRange(preset, nowMs, tz), timeZone: tz, preset };
}
