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
  const flag = (f: string) => `--${f}`;
  const problems = rangeProblems(r, { maxDays, name: flag });
  const lines: string[] = [];
  // One of the pair alone: said as the flag typed needing the other.
  if ((r.from === undefined) !== (r.through === undefined)) {
    const [given, missing] = r.from === undefined ? ["through", "from"] : ["from", "through"];
    lines.push(`${flag(given)} needs ${flag(missing)} (a range is both days, YYYY-MM-DD)`);
    delete problems[missing];
  }
  for (const [f, msgs] of Object.entries(problems)) lines.push(`${flag(f)}: ${msgs.join("; ")}`);
  if (lines.length)
    throw new UsageError(
      `The date range is not valid:\n  ${lines.join("\n  ")}`,
      "Use --preset, or --from and --through (never both).",
    );
  return { preset: r.preset, from: r.from, through: r.through };
}
