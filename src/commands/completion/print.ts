import type { Command } from "commander";
import type { Context } from "../../context.js";
import { completionScript, type Shell } from "./generate.js";
import { commandTree } from "./tree.js";

/** Prints the completion script for `shell`, generated from the tree `cmd` belongs to. */
export async function completionRun(shell: Shell, ctx: Context, cmd: Command): Promise<void> {
  let root = cmd;
  while (root.parent) root = root.parent;
  ctx.io.out(completionScript(shell, commandTree(root)));
}
