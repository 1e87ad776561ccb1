// Range flags shared by reports and range-mode redemptions: --preset, or --from and --through.
import { type Command, Option } from "commander";
import { UsageError } from "../errors.js";
import { RANGE_PRESETS, rangeProblems } from "../spec/ranges.js";

export function addRangeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--preset <preset>", "date range preset (default 30d)").choices([...RANGE_PRESETS]))
    .option("--from <YYYY-MM-DD>", "first day, inclusive, in the organization's time zone")
    .option("--through <YYYY-MM-DD>", "last day, inclusive");
}

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
