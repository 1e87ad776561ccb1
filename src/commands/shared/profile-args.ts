// Which commands take a stored profile's name as their positional: marked where they are declared
// (src/cli/profiles.ts), read by the completion script's generator (src/commands/completion/).
// Commands are kept as plain objects: the declarations and the tree walkers type commander differently.
const profileArgs = new WeakSet<object>();

/** Marks a command whose positional argument is a stored profile name (completed from `profiles list`). */
export function completesProfileNames<C extends object>(cmd: C): C {
  profileArgs.add(cmd);
  return cmd;
}

export function takesProfileName(cmd: object): boolean {
  return profileArgs.has(cmd);
}
