// The range flags (--preset, or --from and --through; declared by src/cli/range.ts) checked before
// any request, by reports and range-mode redemptions.
import { UsageError } from "../../errors.js";
import { rangeProblems } from "../../spec/ranges.js";

export interface RangeFlags {
  preset?: string | undefined;
  from?: string | undefined;
  through?: string | undefined;
}

/** Checks the range flags before any request; `maxDays` null means no cap. */
export function checkRange(r: RangeFlags, maxDays: number | null = 366): RangeFlags {
  const problems = rangeProblems(r, { maxDays });
  const lines = Object.entries(problems).map(([f, msgs]) => `--${f}: ${msgs.join("; ")}`);
  if (lines.length)
    throw new UsageError(
      `The date range is not valid:\n  ${lines.join("\n  ")}`,
      "Use --preset, or --from and --through (never both).",
    );
  return { preset: r.preset, from: r.from, through: r.through };
}
