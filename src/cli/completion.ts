// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, not templates
// completion bash | zsh | fish.
import { Argument, type Command } from "commander";
import { action, examples } from "./define.js";

const profileArgs = new WeakSet<Command>();

/** Marks a command whose positional argument is a stored profile name (completed from `profiles list`). */
export function completesProfileNames(cmd: Command): Command {
  profileArgs.add(cmd);
  return cmd;
}

export function takesProfileName(cmd: Command): boolean {
  return profileArgs.has(cmd);
}

export function registerCompletion(program: Command): void {
  const completion = program
    .command("completion")
    .description("print a shell completion script (bash, zsh or fish), generated from the command tree")
    .addArgument(new Argument("<shell>", "the shell to complete for").choices(["bash", "zsh", "fish"]));
  examples(completion, [
    "source <(partner-cli completion bash)",
    "partner-cli completion bash > ~/.local/share/bash-completion/completions/partner-cli",
    'partner-cli completion zsh > "${fpath[1]}/_partner-cli"',
    "partner-cli completion fish > ~/.config/fish/completions/partner-cli.fish",
  ]);
  action(completion, async (ctx, args, _opts, cmd) =>
    (await import("../commands/completion/print.js")).completionRun(
      args[0] as "bash" | "zsh" | "fish",
      ctx,
      cmd,
    ),
  );
}
