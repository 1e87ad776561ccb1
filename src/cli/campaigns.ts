// campaigns list | get | create | update | activate | pause | end (alias: campaign).
// Declarations only; the run functions live in src/commands/campaigns/ and load lazily.
import { type Command, Option } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, limitOption, outputOptions, lazyNoun } from "./define.js";
import { declareCampaignReport } from "./reports.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerCampaigns = lazyNoun(
  (program: Command) =>
    program
      .command("campaigns")
      .alias("campaign")
      .description("list, create and manage campaigns (dates, code limit, commission, status)"),
  declareCampaignsVerbs,
);

function declareCampaignsVerbs(campaigns: Command, rt: CliRuntime): void {
  examples(campaigns, [
    "partner-cli campaigns create",
    "partner-cli campaigns list --status active",
    "partner-cli campaigns activate spring-oats",
  ]);

  const list = campaigns
    .command("list")
    .description("list campaigns, newest first")
    .addOption(
      new Option("--status <status>", "only this status").choices(["draft", "active", "paused", "ended"]),
    )
    .option("--brand <id-or-name>", "only campaigns of this brand (id, or the exact brand name, any case)")
    .option("--external-reference <ref>", "only the campaign with this external reference")
    .option("--all", "every page, not only the first")
    .addOption(limitOption("campaigns", ""));
  examples(list, [
    "partner-cli campaigns list",
    "partner-cli campaigns list --status active --all --json",
    "partner-cli campaigns list --external-reference spring-oats",
  ]);
  outputOptions(list, { out: true });
  action(rt, list, () => import("../commands/campaigns/list.js"), "campaignsListRun");

  const get = campaigns
    .command("get")
    .description("show one campaign, by id or by external reference")
    .argument("<id-or-ref>", "campaign id (uuid) or external reference");
  examples(get, ["partner-cli campaigns get spring-oats", "partner-cli campaigns get 3f1c…-uuid --json"]);
  outputOptions(get);
  action(rt, get, () => import("../commands/campaigns/get.js"), "campaignsGetRun");

  const create = campaigns
    .command("create")
    .description(
      "create a campaign (a draft) on a distributable offer; on a terminal, missing values are asked for",
    )
    .option("--name <name>", "campaign name (one line, at most 120 characters)")
    .option("--offer <baseGs1>", "the offer (baseGs1) to distribute")
    .option("--from <YYYY-MM-DD>", "first day (inside the offer's redemption dates)")
    .option("--through <YYYY-MM-DD>", "last day, inclusive (inside the offer's redemption dates)")
    .option(
      "--code-limit <n>",
      "codes the campaign may hand out, 1000 or 1,000 (1 to 10,000,000 and the offer's codes available)",
    )
    .option(
      "--rate <rate>",
      "commission rate, 10% or 0.1: 0% to 100% (0 to 1), up to 2 decimals as % (4 as a fraction)",
    )
    .option(
      "--unit-price <dollars>",
      "estimated unit sale price, 4.99 or $4.99: $0 to $100,000, up to 2 decimals",
    )
    .option("--retailer-domain <domain>", "restrict to this retailer (one of the offer's allowed retailers)")
    .option("--retailer-name <name>", "the retailer's display name (with --retailer-domain)")
    .option(
      "--external-reference <ref>",
      "your own unique reference (default: a generated pcli-… reference, printed); makes retries safe",
    )
    .option("--activate", "activate the campaign right after creating it")
    .option(
      "--dry-run",
      "run every check (the offer's read-only), print the request body that would be sent; creates nothing",
    );
  examples(create, [
    "partner-cli campaigns create",
    `partner-cli campaigns create --no-input --name 'Spring oats' --offer 0012345000011 --from "$(partner-cli offers get 0012345000011 --jq .redemptionDates.from)" --through "$(partner-cli offers get 0012345000011 --jq .redemptionDates.through)" --code-limit 5000 --rate 10% --unit-price 4.99 --external-reference spring-oats --activate`,
    `partner-cli campaigns create --no-input --name 'Soda' --offer 0098765000014 --from "$(partner-cli offers get 0098765000014 --jq .redemptionDates.from)" --through "$(partner-cli offers get 0098765000014 --jq .redemptionDates.through)" --code-limit 500 --rate 5% --unit-price 6.49 --retailer-domain freshmart.example --retailer-name FreshMart`,
  ]);
  action(rt, create, () => import("../commands/campaigns/create.js"), "campaignsCreateRun");

  const update = campaigns
    .command("update")
    .description(
      "change a campaign's name, dates, code limit, commission or retailer (only the given flags change)",
    )
    .argument("<id-or-ref>", "campaign id (uuid) or external reference")
    .option("--name <name>", "new name")
    .option("--from <YYYY-MM-DD>", "new first day")
    .option("--through <YYYY-MM-DD>", "new last day")
    .option(
      "--code-limit <n>",
      "new absolute code limit, 1000 or 1,000 (raise, or lower down to the codes handed out)",
    )
    .option("--rate <rate>", "new commission rate, 10% or 0.1 (0% to 100%)")
    .option("--unit-price <dollars>", "new estimated unit sale price, 4.99 or $4.99 ($0 to $100,000)")
    .option("--retailer-domain <domain>", "restrict to this retailer (with --retailer-name)")
    .option("--retailer-name <name>", "the retailer's display name (with --retailer-domain)")
    .option("--no-retailer", "remove the retailer restriction")
    .option(
      "--dry-run",
      "run every check, print the fields that would be sent beside their current values; changes nothing",
    );
  examples(update, [
    "partner-cli campaigns update spring-oats --code-limit 8000",
    "partner-cli campaigns update spring-oats --rate 12% --unit-price 5.49",
    "partner-cli campaigns update spring-oats --no-retailer",
    "partner-cli campaigns update spring-oats --code-limit 8000 --dry-run",
  ]);
  action(rt, update, () => import("../commands/campaigns/update.js"), "campaignsUpdateRun");

  const transition = (verb: string, description: string) =>
    campaigns
      .command(verb)
      .description(description)
      .argument("<id-or-ref>", "campaign id (uuid) or external reference");
  const activate = transition("activate", "activate a draft or paused campaign");
  examples(activate, ["partner-cli campaigns activate spring-oats"]);
  action(rt, activate, () => import("../commands/campaigns/activate.js"), "campaignsActivateRun");
  const pause = transition("pause", "pause an active campaign (handed-out codes keep working)");
  examples(pause, ["partner-cli campaigns pause spring-oats"]);
  action(rt, pause, () => import("../commands/campaigns/pause.js"), "campaignsPauseRun");
  const end = transition("end", "end a campaign for good (asks first; --yes without a terminal)");
  examples(end, ["partner-cli campaigns end spring-oats", "partner-cli campaigns end spring-oats --yes"]);
  action(rt, end, () => import("../commands/campaigns/end.js"), "campaignsEndRun");

  const report = declareCampaignReport(campaigns, "report");
  action(rt, report, () => import("../commands/campaigns/report.js"), "campaignsReportRun");
  examples(report, [
    "partner-cli campaigns report spring-oats --preset 30d",
    "partner-cli campaigns report spring-oats --all-creators --json",
  ]);
}
