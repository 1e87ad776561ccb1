// events types | get | list | tail | sync.
import type { Command } from "@commander-js/extra-typings";
import {
  action,
  type CliRuntime,
  examples,
  feedPageSizeOption,
  limitOption,
  oldLimitOption,
  outputOptions,
  parseDuration,
  parseIntArg,
  lazyNoun,
} from "./define.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerEvents = lazyNoun(
  (program: Command) =>
    program
      .command("events")
      .alias("event")
      .description("read the event log (30 days), follow it, or copy it to a local NDJSON store"),
  declareEventsVerbs,
);

function declareEventsVerbs(noun: Command, rt: CliRuntime): void {
  examples(noun, [
    "partner-cli events sync --out events.ndjson",
    "partner-cli events tail --type redemption.recorded",
  ]);

  const types = noun
    .command("types")
    .description("the eight event types and when each is emitted")
    .addOption(limitOption("types"));
  examples(types, ["partner-cli events types"]);
  outputOptions(types);
  action(rt, types, () => import("../commands/events/types.js"), "eventsTypesRun");

  const get = noun.command("get").argument("<id>", "event id").description("one event envelope from the log");
  examples(get, ["partner-cli events get 0190a1b2-0000-7000-8000-000000000000 --json"]);
  outputOptions(get);
  action(rt, get, () => import("../commands/events/get.js"), "eventsGetRun");

  const list = noun
    .command("list")
    .description(
      "the log oldest first: one request's worth (default), to its end (--all) or at most --limit events; --json prints {items, nextCursor}",
    )
    .option("--type <type>", "only this event type")
    .option("--after <cursor>", "start after this cursor (a nextCursor; not an event id)")
    .option("--all", "read to the end of the log")
    .addOption(limitOption("events", " (from --after)"))
    .option(
      "--page-size <n>",
      "events per request, 1-1000 (default: the API's 100; 1000 with --all or --limit)",
      parseIntArg(1, 1000),
    );
  examples(list, [
    "partner-cli events list --type redemption.recorded --limit 50",
    "partner-cli events list --all --format ndjson > events.ndjson",
    'partner-cli events list --after "$CURSOR" --json',
  ]);
  outputOptions(list, { out: true });
  action(rt, list, () => import("../commands/events/list.js"), "eventsListRun");

  const tail = noun
    .command("tail")
    .description("follow new events from now until Ctrl-C (exit 0); NDJSON when piped or with --json")
    .option("--type <type>", "only this event type")
    .option("--interval <duration>", "base poll interval (grows while quiet)", parseDuration, 2_000);
  examples(tail, ["partner-cli events tail", "partner-cli events tail --type code.issued --json | jq .data"]);
  action(rt, tail, () => import("../commands/events/tail.js"), "eventsTailRun");

  const sync = noun
    .command("sync")
    .description(
      "copy new events since the saved cursor into an NDJSON store (the format webhooks listen writes), each event once (for cron)",
    )
    .option("--type <type>", "only this event type (its own cursor)")
    .option("--out <file>", "NDJSON event store", "events.ndjson")
    .option("--from-start", "ignore the saved cursor and read the whole log (30 days); no duplicates")
    .addOption(feedPageSizeOption("events"))
    .addOption(oldLimitOption());
  examples(sync, [
    "partner-cli events sync --out /data/events.ndjson",
    "PARTNER_PROFILE=prod partner-cli events sync --out /data/events.ndjson --json",
  ]);
  action(rt, sync, () => import("../commands/events/sync.js"), "eventsSyncRun");
}
