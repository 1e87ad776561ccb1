// cursors list | show | reset.
import type { Command } from "@commander-js/extra-typings";
import { action, type CliRuntime, examples } from "./define.js";

export function registerCursors(program: Command, rt: CliRuntime): void {
  const noun = program
    .command("cursors")
    .alias("cursor")
    .description("saved positions of redemption exports and event syncs");
  examples(noun, ["partner-cli cursors list", "partner-cli cursors reset default --yes"]);
  const list = noun
    .command("list")
    .description("the saved cursors of the service this run talks to, with their organization");
  examples(list, ["partner-cli cursors list"]);
  action(rt, list, () => import("../commands/cursors/list.js"), "cursorsListRun");
  const show = noun
    .command("show")
    .argument("<name>", "cursor name (default: default)")
    .description("details of a saved cursor");
  examples(show, ["partner-cli cursors show default"]);
  action(rt, show, () => import("../commands/cursors/show.js"), "cursorsShowRun");
  const reset = noun
    .command("reset")
    .argument("<name>", "cursor name")
    .description("forget a saved cursor: the next run starts from the beginning");
  examples(reset, ["partner-cli cursors reset default --yes"]);
  action(rt, reset, () => import("../commands/cursors/reset.js"), "cursorsResetRun");
}
