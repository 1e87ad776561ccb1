import type { Context } from "../../context.js";
import { completionScript, type Shell } from "./generate.js";
import type { CommandNode } from "./tree.js";

export interface CompletionOptions {
  shell: Shell;
  /** The command-tree model of the program (src/cli/tree.ts programTree). */
  tree: CommandNode;
}

/** Prints the completion script for `shell`, generated from the command-tree model. */
export async function completionRun(opts: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.out(completionScript(opts.shell, opts.tree));
}
