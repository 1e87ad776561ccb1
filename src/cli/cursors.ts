// cursors list | show | reset.
import type { Command } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples, limitOption, outputOptions, lazyNoun } from "./define.js";

/** The noun as the top-level help shows it; its verbs are declared when it is named (program.ts). */
export const registerCursors = lazyNoun(
  (program: Command) =>
    program
      .command("cursors")
      .alias("cursor")
      .description("saved positions of redemption exports and event syncs"),
  declareCursorsVerbs,
);

function declareCursorsVerbs(noun: Command, rt: CliRuntime): void {
  examples(noun, ["partner-cli cursors list", "partner-cli cursors show redemptions.csv"]);
  const list = noun
    .command("list")
    .description("the saved cursors of this config directory: what each feeds, its organization and service")
    .addOption(limitOption("cursors"));
  examples(list, ["partner-cli cursors list", "partner-cli cursors list --json"]);
  outputOptions(list);
  action(rt, list, () => import("../commands/cursors/list.js"), "cursorsListRun");
  const show = noun
    .command("show")
    .argument("<target>", "the file a cursor feeds, or a --cursor name")
    .description("details of a saved cursor");
  examples(show, ["partner-cli cursors show redemptions.csv", "partner-cli cursors show excel"]);
  action(rt, show, () => import("../commands/cursors/show.js"), "cursorsShowRun");
  const reset = noun
    .command("reset")
    .argument("<target>", "the file a cursor feeds, or a --cursor name")
    .description(
      "forget a saved cursor (a file's: nothing is appended to it again; a name's: it starts over)",
    );
  examples(reset, ["partner-cli cursors reset excel --yes"]);
  action(rt, reset, () => import("../commands/cursors/reset.js"), "cursorsResetRun");
}
