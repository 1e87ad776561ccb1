// roster: import, list, get, set, export (declarations only; run functions in src/commands/roster/).
import { type Command, Option } from "@commander-js/extra-typings";
import {
  action,
  type CliRuntime,
  collect,
  examples,
  limitOption,
  outputOptions,
  parseBoolArg,
  parseIntArg,
  lazyNoun,
} from "./define.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerRoster = lazyNoun(
  (program: Command) =>
    program
      .command("roster")
      .description("the organization's creators, keyed by your own creator ID (externalId)"),
  declareRosterVerbs,
);

function declareRosterVerbs(roster: Command, rt: CliRuntime): void {
  examples(roster, ["partner-cli roster import roster.csv", "partner-cli roster export --out roster.csv"]);

  const imp = roster
    .command("import")
    .description(
      "add or update creators from a CSV or .xlsx file (header row with externalId and any of name, email, handle, active)",
    )
    .argument("<file>", 'CSV or .xlsx file (see docs/roster.md); "-" reads stdin')
    .option(
      "--sheet <name|n>",
      "the sheet of an .xlsx workbook to read, by name or number from 1 (default: the first)",
    )
    .option(
      "--encoding <name>",
      "the file's encoding, e.g. windows-1252, latin1, shift_jis (default: UTF-8; UTF-16 with a byte order mark is recognized)",
    )
    .option(
      "--delimiter <c>",
      'field separator: "," ";" "|" or tab (default: from a first line "sep=X", else the header line)',
    )
    .option(
      "--quote <mode>",
      'double (default): standard CSV quoting; none: " is ordinary text, every line end ends a row (| and tab exports that never quote)',
    )
    .option("--dry-run", "check every row and report what would be sent; sends nothing (no network)")
    .option("--batch-size <n>", "rows per request, 1 to 1000", parseIntArg(1, 1000), 1000)
    .option(
      "--concurrency <n>",
      "batches in flight at once, 1 to 16 (halved while the service answers 429)",
      parseIntArg(1, 16),
      4,
    )
    .option(
      "--rejects <file>",
      "write the rejected rows as CSV: line, reasons and the row's own columns (fix it and import it as it is)",
    )
    .option("--clear-empty", "blank email/handle cells clear the stored value (default: blank keeps it)")
    .option(
      "--max-input-size <size>",
      "the most read from stdin or a pipe, e.g. 500MB, 10GB (default: 2GB); past it nothing is sent (a file has no limit)",
    )
    .option(
      "--column <field=header>",
      "read FIELD (externalId, name, email, handle, active) from the column named HEADER, or from column number N with #N (1-based; a column literally named #N wins); repeatable",
      collect,
      [],
    );
  examples(imp, [
    "partner-cli roster import roster.csv",
    "partner-cli roster import roster.csv --dry-run",
    "partner-cli roster import excel-export.csv --encoding windows-1252",
    'partner-cli roster import creators.xlsx --sheet "Creators"',
    'partner-cli roster import export.csv --column externalId="Member No" --column email="Work email" --rejects rejects.csv',
    "crm-export | partner-cli roster import - --json > result.json",
    "partner-cli roster import crm-report.txt --quote none --column email=#5",
  ]);
  action(rt, imp, () => import("../commands/roster/import.js"), "rosterImportRun");

  const list = roster
    .command("list")
    .description("list creators, one page at a time (or every page with --all, or at most --limit)")
    .option("--active <true|false>", "only active (true) or inactive (false) creators", parseBoolArg)
    .option("--updated-since <ts>", "only creators updated at or after this time (ISO 8601, or YYYY-MM-DD)")
    .option("--all", "read every page")
    .addOption(limitOption("creators", " (from --page)"))
    .option("--page <n>", "page number, from 0", parseIntArg(0))
    .option("--page-size <n>", "creators per page, 1 to 200", parseIntArg(1, 200));
  examples(list, [
    "partner-cli roster list",
    "partner-cli roster list --active false --all",
    "partner-cli roster list --limit 500 --format csv > first-500.csv",
    "partner-cli roster list --updated-since 2025-03-01T00:00:00Z --all --json",
  ]);
  outputOptions(list, { out: true });
  action(rt, list, () => import("../commands/roster/list.js"), "rosterListRun");

  const get = roster
    .command("get")
    .description("show one creator")
    .argument("<externalId>", "your creator ID (case-sensitive)");
  examples(get, ["partner-cli roster get cr-0001", "partner-cli roster get 'Maria López/1' --json"]);
  outputOptions(get);
  action(rt, get, () => import("../commands/roster/get.js"), "rosterGetRun");

  const set = roster
    .command("set")
    .description("create or update one creator (only the fields given change)")
    .argument("<externalId>", "your creator ID (case-sensitive)")
    .option("--name <s>", "display name (required for a new creator)")
    .option("--email <s>", 'email address; --email "" clears it')
    .option("--handle <s>", 'social handle; --handle "" clears it')
    .addOption(new Option("--active", "set the creator active").conflicts("inactive"))
    .addOption(new Option("--inactive", "set the creator inactive (blocks new campaign links)"));
  examples(set, [
    'partner-cli roster set cr-0042 --name "Maria López" --email maria@example.com',
    "partner-cli roster set cr-0042 --inactive",
    'partner-cli roster set cr-0042 --email ""',
  ]);
  action(rt, set, () => import("../commands/roster/set.js"), "rosterSetRun");

  const exp = roster
    .command("export")
    .description(
      "write the roster as CSV in the import format (externalId,name,email,handle,active), or as an xlsx workbook",
    )
    .option(
      "--out <file>",
      "write to FILE (created 0600, written completely, then renamed into place); - for stdout",
    )
    .option("--active <true|false>", "only active (true) or inactive (false) creators", parseBoolArg)
    .option("--updated-since <ts>", "only creators updated at or after this time (ISO 8601, or YYYY-MM-DD)")
    .option("--format <format>", "csv (default) or xlsx (a workbook; default when --out ends in .xlsx)")
    .option("--bom", "start the CSV with a UTF-8 BOM, so Excel on Windows shows accents right");
  examples(exp, [
    "partner-cli roster export --out roster.csv",
    "partner-cli roster export --active true > active.csv",
    "partner-cli roster export --out roster.xlsx",
    "partner-cli roster export --out roster-excel.csv --bom",
  ]);
  action(rt, exp, () => import("../commands/roster/export.js"), "rosterExportRun");
}
