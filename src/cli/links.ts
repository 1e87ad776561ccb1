// links list | get | create | pause | resume | export | assign | job (alias: link).
// Declarations only; the run functions live in src/commands/links/ and load lazily.
import { type Command, Option } from "@commander-js/extra-typings";
import {
  action,
  type CliRuntime,
  collect,
  examples,
  limitOption,
  outputOptions,
  parseBoolArg,
  parseDuration,
  parseIntArg,
  lazyNoun,
} from "./define.js";

const CAMPAIGN = ["<campaign>", "campaign id (uuid) or external reference"] as const;
const EXTERNAL_ID = ["<external-id>", "the creator's externalId"] as const;

function timeoutOption(description: string): Option {
  return new Option("--timeout <duration>", description).argParser(parseDuration).default(600_000, "10m");
}

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerLinks = lazyNoun(
  (program: Command) =>
    program
      .command("links")
      .alias("link")
      .description("share links: one per creator per campaign, singly or in bulk (assign)"),
  declareLinksVerbs,
);

function declareLinksVerbs(links: Command, rt: CliRuntime): void {
  examples(links, [
    "partner-cli links assign spring-oats --roster",
    "partner-cli links export spring-oats --out links.csv",
  ]);

  const list = links
    .command("list")
    .description("list a campaign's share links")
    .argument(...CAMPAIGN)
    .option("--active <bool>", "only enabled (true) or paused (false) links", parseBoolArg)
    .option("--all", "every page, not only the first")
    .addOption(limitOption("links", " (from --page)"))
    .option("--page <n>", "page number, from 0", parseIntArg(0))
    .option("--page-size <n>", "links per page, 1 to 200", parseIntArg(1, 200));
  examples(list, [
    "partner-cli links list spring-oats",
    "partner-cli links list spring-oats --page 1 --page-size 50",
    "partner-cli links list spring-oats --active false --all",
  ]);
  outputOptions(list, { out: true });
  action(rt, list, () => import("../commands/links/list.js"), "linksListRun");

  const single = (verb: string, description: string) => {
    const cmd = links
      .command(verb)
      .description(description)
      .argument(...CAMPAIGN)
      .argument(...EXTERNAL_ID);
    return examples(cmd, [`partner-cli links ${verb} spring-oats cr-0001`]);
  };
  const get = outputOptions(single("get", "show one creator's share link"));
  action(rt, get, () => import("../commands/links/get.js"), "linksGetRun");
  const create = single(
    "create",
    "give one creator a share link (repeating is safe: an existing link is returned as is)",
  );
  action(rt, create, () => import("../commands/links/create.js"), "linksCreateRun");
  const pause = single("pause", "pause one creator's link (handed-out codes keep working)");
  action(rt, pause, () => import("../commands/links/pause.js"), "linksPauseRun");
  const resume = single("resume", "resume a paused link");
  action(rt, resume, () => import("../commands/links/resume.js"), "linksResumeRun");

  const exp = links
    .command("export")
    .description("write every link as CSV: externalId, name, shareUrl, shortCode, statsUrl, active")
    .argument(...CAMPAIGN)
    .option("--out <file>", 'write to this file (atomically, created 0600) instead of stdout ("-")')
    .option("--format <format>", "csv (default) or xlsx (a workbook; default when --out ends in .xlsx)")
    .option("--bom", "start the CSV with a UTF-8 BOM, so Excel on Windows shows accents right");
  examples(exp, [
    "partner-cli links export spring-oats --out links.csv",
    "partner-cli links export spring-oats > links.csv",
    "partner-cli links export spring-oats --out links.xlsx",
  ]);
  action(rt, exp, () => import("../commands/links/export.js"), "linksExportRun");

  const assign = links
    .command("assign")
    .description(
      "give share links in bulk (a job): to the whole roster, to the ids in a file, or to the ids given; waits for the job. Creators who already have a link are skipped; when all of them do, it says so and exits 0 (safe to run nightly)",
    )
    .argument(...CAMPAIGN)
    .argument("[external-ids...]", "creators' externalIds (instead of --roster or --ids)")
    .option("--roster", "every active creator on the roster")
    .option(
      "--ids <file>",
      'a CSV or .xlsx file with an id column (externalId, "Creator ID", id...), or one id per line ("-" = stdin)',
    )
    .option(
      "--sheet <name|n>",
      "with --ids: the sheet of an .xlsx workbook, by name or number from 1 (default: the first)",
    )
    .option(
      "--column <field=header>",
      'with --ids: read the ids from the column named HEADER, e.g. --column externalId="Member No", or from column number N with #N',
      collect,
      [],
    )
    .option(
      "--encoding <name>",
      "with --ids: the file's encoding, e.g. windows-1252 (default: UTF-8, or UTF-16 by BOM)",
    )
    .option(
      "--delimiter <c>",
      'with --ids: field separator "," ";" "|" or tab (default: from a first line "sep=X", else the first line)',
    )
    .option("--quote <mode>", 'with --ids: double (default, CSV quoting) or none (" is ordinary text)')
    .option("--no-wait", "print the job id and return at once")
    .addOption(timeoutOption("how long to wait for the job (e.g. 90s, 10m)"))
    .option("--unassignable <file>", "write the creators left without a link as CSV (externalId,reason)")
    .option("--bom", "start the --unassignable CSV with a UTF-8 BOM (for Excel on Windows)")
    .option(
      "--dry-run",
      "work out the selection with read-only requests (how many selected, already linked, would get a link, refused and why); queues nothing, writes no file",
    );
  examples(assign, [
    "partner-cli links assign spring-oats --roster",
    "partner-cli links assign spring-oats --ids creators.csv --unassignable left-out.csv",
    'partner-cli links assign spring-oats --ids crm.csv --column externalId="Member No" --encoding windows-1252',
    "partner-cli links assign spring-oats --ids creators.xlsx --sheet 2",
    "partner-cli links assign spring-oats cr-0001 cr-0002 --json",
    "partner-cli links assign spring-oats --roster --no-wait",
    "partner-cli links assign spring-oats --ids creators.csv --dry-run",
  ]);
  action(rt, assign, () => import("../commands/links/assign.js"), "linksAssignRun");

  const job = links
    .command("job")
    .description("show an assignment job, or follow it to the end with --wait")
    .argument(...CAMPAIGN)
    .argument("<job-id>", "the job id printed by links assign")
    .option("--wait", "poll until the job completes or fails")
    .addOption(timeoutOption("how long to wait with --wait (e.g. 90s, 10m)"))
    .option("--unassignable <file>", "with --wait: write the creators left without a link as CSV")
    .option("--bom", "start the --unassignable CSV with a UTF-8 BOM (for Excel on Windows)");
  examples(job, [
    "partner-cli links job spring-oats 7d0c…-job-uuid",
    "partner-cli links job spring-oats 7d0c…-job-uuid --wait",
  ]);
  action(rt, job, () => import("../commands/links/job.js"), "linksJobRun");
}
