// The command-tree model of a built program (src/commands/completion/tree.ts walks it once), with
// what only the declarations know: examples and notes (help.ts) and which arguments are profile names.
import type { Command } from "commander";
import { type CommandNode, commandTree } from "../commands/completion/tree.js";
import { examplesOf, notesOf } from "./help.js";
import { HELP_TOPICS } from "./help-topics.js";

// Commands are kept as plain objects: the declarations and the tree's readers type commander differently.
const profileArgs = new WeakSet<object>();

/** Marks a command whose positional argument is a stored profile name (completed from the profiles). */
export function completesProfileNames<C extends object>(cmd: C): C {
  profileArgs.add(cmd);
  return cmd;
}

export function takesProfileName(cmd: object): boolean {
  return profileArgs.has(cmd);
}

/** The model of the tree `cmd` belongs to, from its root. */
export function programTree(cmd: Command): CommandNode {
  let root = cmd;
  while (root.parent) root = root.parent;
  return commandTree(root, {
    examplesOf,
    notesOf,
    takesProfileName,
    topics: HELP_TOPICS.map((t) => t.name),
  });
}
