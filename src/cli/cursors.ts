// cursors list | show | reset.
import type { Command } from "commander";
import { action, examples } from "./define.js";

export function registerCursors(program: Command): void {
  const noun = program
    .command("cursors")
    .alias("cursor")
    .description("saved positions of redemption exports and event syncs");
  examples(noun, ["partner-cli cursors list", "partner-cli cursors reset default --yes"]);
  const list = noun
    .command("list")
    .description("the saved cursors of the service this run talks to, with their organization");
  examples(list, ["partner-cli cursors list"]);
  action(list, async (ctx) => (await import("../commands/cursors/cursors.js")).listRun(ctx));
  const show = noun
    .command("show")
    .argument("<name>", "cursor name (default: default)")
    .description("details of a saved cursor");
  examples(show, ["partner-cli cursors show default"]);
  action(show, async (ctx, [name]) => (await import("../commands/cursors/cursors.js")).showRun(name!, ctx));
  const reset = noun
    .command("reset")
    .argument("<name>", "cursor name")
    .description("forget a saved cursor: the next run starts from the beginning");
  examples(reset, ["partner-cli cursors reset default --yes"]);
  action(reset, async (ctx, [name]) => (await import("../commands/cursors/cursors.js")).resetRun(name!, ctx));
}
