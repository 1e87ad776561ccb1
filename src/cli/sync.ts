// sync [--to URL] [--only KINDS] [--from-start] [--full] | sync status [--to URL].
import type { Command } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, feedPageSizeOption, oldLimitOption } from "./define.js";
import { notes } from "./help.js";

const TO_HELP =
  "destination: sqlite:PATH or postgres://USER@HOST/DB[?schema=NAME] (env PARTNER_SYNC_TO; default sqlite:./partner.sqlite)";

export function registerSync(program: Command, rt: CliRuntime): void {
  const sync = program
    .command("sync")
    .description(
      "bring a database (SQLite file or PostgreSQL) up to date with the organization: redemptions with corrections applied, events, creators, campaigns, offers, share links; each page and its checkpoint in one transaction (for cron)",
    )
    .option("--to <url>", TO_HELP)
    .option(
      "--only <kinds>",
      "only these kinds, comma-separated: offers, campaigns, creators, links, redemptions, events",
    )
    .option(
      "--from-start",
      "ignore the saved checkpoints and read every feed from its beginning (rows are upserted: no duplicates)",
    )
    .option(
      "--full",
      "read the whole roster instead of the creators updated since the last sync, and compare it",
    )
    .addOption(feedPageSizeOption("items"))
    .addOption(oldLimitOption())
    .option(
      "--dry-run",
      "per kind, from the saved checkpoints: where the read would start, what it would read and which table it would write; writes nothing (a missing database file is not created)",
    );
  notes(
    sync,
    "\nThe schema, views and example queries: docs/database.md. A second run against the same database exits 9.",
  );
  examples(sync, [
    "partner-cli sync",
    "partner-cli sync --to sqlite:/data/partner.sqlite --only redemptions,events",
    "PARTNER_SYNC_TO=postgres://partner@db.example.com/bi partner-cli sync --json",
    "partner-cli sync --full",
    "partner-cli sync --to sqlite:/data/partner.sqlite --dry-run",
  ]);
  action(rt, sync, () => import("../commands/sync/run.js"), "syncRun");

  const status = sync
    .command("status")
    .description(
      "per kind: rows held, last sync, cursor age, and whether the event log's 30-day window has been outrun (reads the database only)",
    )
    .option("--to <url>", TO_HELP);
  examples(status, [
    "partner-cli sync status",
    "partner-cli sync status --to sqlite:/data/partner.sqlite --json",
  ]);
  // `sync` declares --to as well, and commander gives a parent's option to the parent wherever it
  // appears: read it from there too.
  action(rt, status, () => import("../commands/sync/status.js"), "syncStatusRun", {
    adapt: (o, cmd) => {
      const parentTo = cmd.parent?.opts().to;
      return { to: o.to ?? (typeof parentTo === "string" ? parentTo : undefined) };
    },
  });
}
