// reports summary | campaign | creators.
import type { Command } from "commander";
import { action, examples, parseIntArg } from "./define.js";
import { addRangeOptions } from "./range.js";

/** Declares `<parent> campaign|report ID_OR_REF` (shared by `reports campaign` and `campaigns report`). */
export function declareCampaignReport(parent: Command, name: string): Command {
  const cmd = addRangeOptions(
    parent
      .command(name)
      .argument("<campaign>", "campaign id or externalReference")
      .description("a campaign's totals, a daily chart and its creators ranked by verified redemptions"),
  )
    .option("--all-creators", "read every page of creators")
    .option("--page <n>", "creators page, from 0", parseIntArg(0))
    .option("--page-size <n>", "creators per page (1-200)", parseIntArg(1, 200));
  action(cmd, async (ctx, [idOrRef], o) =>
    (await import("../commands/reports/campaign.js")).campaignReportRun(idOrRef!, o, ctx),
  );
  return cmd;
}

export function registerReports(program: Command): void {
  const noun = program
    .command("reports")
    .alias("report")
    .description("program summary, campaign report and creator counts");
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
  action(summary, async (ctx, _a, o) => (await import("../commands/reports/summary.js")).summaryRun(o, ctx));

  const campaign = declareCampaignReport(noun, "campaign");
  examples(campaign, [
    "partner-cli reports campaign spring-oats --preset 7d",
    "partner-cli reports campaign spring-oats --all-creators --json",
  ]);

  const creators = addRangeOptions(
    noun
      .command("creators")
      .description(
        "verified redemptions and commission per creator per campaign, as CSV across all pages (no 366-day cap)",
      ),
  )
    .option("--brand <id-or-name>", "only this brand (id or exact name, any case; unknown: exit 5)")
    .option("--campaign <id-or-ref>", "only this campaign (id or external reference; unknown: exit 5)")
    .option("--out <file>", 'write to FILE (complete or not at all, created 0600); "-" or absent: stdout')
    .option("--format <format>", "csv (default) or xlsx (a workbook; default when --out ends in .xlsx)")
    .option("--bom", "start the CSV with a UTF-8 BOM, so Excel on Windows shows accents right");
  examples(creators, [
    "partner-cli reports creators --preset last-month --out payouts.csv",
    "partner-cli reports creators --preset 90d > last-90-days.csv",
    "partner-cli reports creators --preset last-month --campaign spring-oats --out spring-payouts.csv",
    "partner-cli reports creators --preset last-month --out payouts.xlsx",
  ]);
  action(creators, async (ctx, _a, o) =>
    (await import("../commands/reports/creators.js")).creatorsReportRun(o, ctx),
  );
}
