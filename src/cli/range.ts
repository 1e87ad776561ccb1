// Range flags shared by reports and range-mode redemptions: --preset, or --from and --through.
// Their check before any request is checkRange (src/commands/shared/range.ts).
import { type Command, Option, type OptionValues } from "@commander-js/extra-typings";
import { RANGE_PRESETS } from "../spec/ranges.js";

export function addRangeOptions<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  cmd: Command<A, O, G>,
) {
  return cmd
    .addOption(new Option("--preset <preset>", "date range preset (default 30d)").choices([...RANGE_PRESETS]))
    .option("--from <YYYY-MM-DD>", "first day, inclusive, in the organization's time zone")
    .option("--through <YYYY-MM-DD>", "last day, inclusive");
}
