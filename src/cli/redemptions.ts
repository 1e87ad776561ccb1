// redemptions export | list | get.
import type { Command } from "@commander-js/extra-typings";
import {
  action,
  type CliRuntime,
  examples,
  feedPageSizeOption,
  limitOption,
  oldLimitOption,
  outputOptions,
  parseIntArg,
  lazyNoun,
} from "./define.js";
import { addRangeOptions } from "./range.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerRedemptions = lazyNoun(
  (program: Command) =>
    program.command("redemptions").alias("redemption").description("export and read redemptions"),
  declareRedemptionsVerbs,
);

function declareRedemptionsVerbs(noun: Command, rt: CliRuntime): void {
  examples(noun, [
    "partner-cli redemptions export --out redemptions.csv",
    "partner-cli redemptions list --preset 7d",
  ]);

  const exp = noun
    .command("export")
    .description(
      "copy new redemptions since the saved cursor, exactly once per row (for cron); each --out file keeps its own cursor (per organization), stdout and workbooks only a named one",
    )
    .option(
      "--out <file>",
      'append to FILE (created 0600, fsynced before the cursor is saved); a file that is not exactly what this cursor wrote is refused (exit 2); "-" or absent: stdout',
    )
    .option(
      "--format <format>",
      "csv (default), ndjson, or xlsx (a new workbook per run, never appended to; default when --out ends in .xlsx)",
    )
    .option(
      "--bom",
      "CSV: start a new file with a UTF-8 BOM for Excel (refused on a file that has content without one)",
    )
    .option(
      "--cursor <name>",
      "stdout or --format xlsx: keep a cursor under this name and continue it (without it, nothing is saved); with a CSV/NDJSON --out: a label for the file's own cursor",
    )
    .option(
      "--continue-from <file>",
      "start --out's cursor where the cursor of FILE stopped, and close FILE's (rotating a cron job to a new file)",
    )
    .option(
      "--since <when>",
      'only rows recorded since: a duration back from now ("7d") or a date; a new cursor keeps it',
    )
    .option(
      "--from-start",
      "ignore the saved cursor and read the feed from the beginning (into a new or empty file)",
    )
    .option(
      "--corrections",
      "also write a change row for each exclusion or restoration (from the event log, own cursor)",
    )
    .addOption(feedPageSizeOption("rows"))
    .addOption(oldLimitOption());
  examples(exp, [
    "partner-cli redemptions export --out redemptions.csv",
    "partner-cli redemptions export --out redemptions.ndjson --format ndjson --corrections",
    "partner-cli redemptions export --out redemptions-2027.csv --continue-from redemptions.csv",
    "partner-cli redemptions export --since 1d | head",
    "partner-cli redemptions export --out redemptions-$(date +%F).xlsx --cursor excel",
  ]);
  action(rt, exp, () => import("../commands/redemptions/export.js"), "redemptionsExportRun");

  const list = addRangeOptions(
    noun.command("list").description("redemptions redeemed in a date range, newest first"),
  )
    .option("--campaign <id-or-ref>", "only this campaign (id or external reference; unknown: exit 5)")
    .option("--brand <id-or-name>", "only this brand (id or exact name, any case; unknown: exit 5)")
    .option("--state <state>", "counting state: counted, excluded or test_code")
    .option("--all", "read every page (pinned with asOf)")
    .addOption(limitOption("redemptions", " (from --page)"))
    .option("--page <n>", "page number, from 0", parseIntArg(0))
    .option("--page-size <n>", "items per page (1-200)", parseIntArg(1, 200));
  examples(list, [
    "partner-cli redemptions list --preset 7d",
    "partner-cli redemptions list --preset 7d --state excluded --all --json",
    "partner-cli redemptions list --preset 30d --limit 500 --format csv > recent.csv",
  ]);
  outputOptions(list, { out: true });
  action(rt, list, () => import("../commands/redemptions/list.js"), "redemptionsListRun");

  const get = noun
    .command("get")
    .argument("<id>", "redemption id")
    .description("one redemption with its current counting state");
  examples(get, ["partner-cli redemptions get 3f2a9c1e-0000-4000-8000-000000000000"]);
  outputOptions(get);
  action(rt, get, () => import("../commands/redemptions/get.js"), "redemptionsGetRun");
}
