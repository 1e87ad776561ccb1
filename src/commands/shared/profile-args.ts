// Which commands take a stored profile's name as their positional: marked where they are declared
// (src/cli/profiles.ts), read by the completion script's generator (src/commands/completion/).
import type { Command } from "commander";

const profileArgs = new WeakSet<Command>();

/** Marks a command whose positional argument is a stored profile name (completed from `profiles list`). */
export function completesProfileNames(cmd: Command): Command {
  profileArgs.add(cmd);
  return cmd;
}

export function takesProfileName(cmd: Command): boolean {
  return profileArgs.has(cmd);
}
