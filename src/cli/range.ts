// Range flags shared by reports and range-mode redemptions: --preset, or --from and --through.
// Their check before any request is checkRange (src/commands/shared/range.ts).
import { type Command, Option } from "commander";
import { RANGE_PRESETS } from "../spec/ranges.js";

export function addRangeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--preset <preset>", "date range preset (default 30d)").choices([...RANGE_PRESETS]))
    .option("--from <YYYY-MM-DD>", "first day, inclusive, in the organization's time zone")
    .option("--through <YYYY-MM-DD>", "last day, inclusive");
}
