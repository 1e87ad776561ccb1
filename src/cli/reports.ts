// reports summary | campaign | creators.
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, outputOptions, parseIntArg, lazyNoun } from "./define.js";
import { addRangeOptions } from "./range.js";

/**
 * Declares `<parent> campaign|report ID_OR_REF` (shared by `reports campaign` and `campaigns report`);
 * the caller wires its action.
 */
export function declareCampaignReport(parent: CommandUnknownOpts, name: string) {
  const cmd = addRangeOptions(
    parent
      .command(name)
      .argument("<campaign>", "campaign id or externalReference")
      .description("a campaign's totals, a daily chart and its creators ranked by verified redemptions"),
  )
    .option("--all-creators", "read every page of creators")
    .option("--page <n>", "creators page, from 0", parseIntArg(0))
    .option("--page-size <n>", "creators per page (1-200)", parseIntArg(1, 200));
  return outputOptions(cmd, { out: true }).option(
    "--section <name>",
    "only this part: totals, daily or creators (one table, for tools)",
  );
}

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerReports = lazyNoun(
  (program: Command) =>
    program
      .command("reports")
      .alias("report")
      .description("program summary, campaign report and creator counts"),
  declareReportsVerbs,
);

function declareReportsVerbs(noun: Command, rt: CliRuntime): void {
  examples(noun, [
    "partner-cli reports summary --preset 30d",
    "partner-cli reports creators --preset last-month --out payouts.csv",
  ]);

  const summary = addRangeOptions(
    noun.command("summary").description("totals and per-brand figures for a date range"),
  ).option("--brand <id-or-name>", "only this brand (id or exact name, any case; unknown: exit 5)");
  examples(summary, [
    "partner-cli reports summary",
    "partner-cli reports summary --preset this-month --json",
  ]);
  const summaryWithSection = outputOptions(summary, { out: true }).option(
    "--section <name>",
    "only this part: totals or brands (one table, for tools)",
  );
  action(rt, summaryWithSection, () => import("../commands/reports/summary.js"), "reportsSummaryRun");

  const campaign = declareCampaignReport(noun, "campaign");
  action(rt, campaign, () => import("../commands/reports/campaign.js"), "reportsCampaignRun");
  examples(campaign, [
    "partner-cli reports campaign spring-oats --preset 7d",
    "partner-cli reports campaign spring-oats --all-creators --json",
  ]);

  const creators = addRangeOptions(
    noun
      .command("creators")
      .description(
        "verified redemptions and commission per creator per campaign across all pages (no 366-day cap): CSV, xlsx, a table on a terminal",
      ),
  )
    .option("--brand <id-or-name>", "only this brand (id or exact name, any case; unknown: exit 5)")
    .option("--campaign <id-or-ref>", "only this campaign (id or external reference; unknown: exit 5)")
    .option("--out <file>", 'write to FILE (complete or not at all, created 0600); "-" or absent: stdout')
    .option(
      "--format <format>",
      "csv (default with --out) or xlsx (a workbook; default when --out ends in .xlsx); on stdout also table (default on a terminal), tsv (default when piped), json or ndjson",
    )
    .option("--bom", "start the CSV with a UTF-8 BOM, so Excel on Windows shows accents right");
  examples(creators, [
    "partner-cli reports creators --preset last-month --out payouts.csv",
    "partner-cli reports creators --preset 90d --format csv > last-90-days.csv",
    "partner-cli reports creators --preset last-month --campaign spring-oats --out spring-payouts.csv",
    "partner-cli reports creators --preset last-month --out payouts.xlsx",
  ]);
  action(rt, creators, () => import("../commands/reports/creators.js"), "reportsCreatorsRun");
}
