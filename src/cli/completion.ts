// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, not templates
// completion bash | zsh | fish.
import { Argument, type Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Shell } from "../commands/completion/generate.js";
import type { Context } from "../context.js";
import { action, type CliRuntime, commanderView, examples } from "./define.js";

export function registerCompletion(program: Command, rt: CliRuntime): void {
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
  // Bridge until commands/completion/print.ts takes (opts, ctx): it still reads the tree from the command.
  action(
    rt,
    completion,
    async () => {
      const { completionRun } = await import("../commands/completion/print.js");
      return {
        completionRun: (o: { shell: Shell; command: CommandUnknownOpts }, ctx: Context) =>
          completionRun(o.shell, ctx, commanderView(o.command)),
      };
    },
    "completionRun",
    { adapt: (o, cmd) => ({ ...o, command: cmd }) },
  );
}
