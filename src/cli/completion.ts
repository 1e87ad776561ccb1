// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, not templates
// completion bash | zsh | fish | powershell, and the hidden `__complete` the scripts ask for values.
import { Argument, type Command, type CommandUnknownOpts } from "@commander-js/extra-typings";
import type { Shell } from "../commands/completion/generate.js";
import type { Context } from "../context.js";
import { action, type CliRuntime, commanderView, examples } from "./define.js";

export { completesProfileNames, takesProfileName } from "./tree.js";

const SHELLS: Shell[] = ["bash", "zsh", "fish", "powershell"];

export function registerCompletion(program: Command, rt: CliRuntime): void {
  const completion = program
    .command("completion")
    .description(
      "print a shell completion script (bash, zsh, fish or powershell), generated from the command tree",
    )
    .addArgument(new Argument("<shell>", "the shell to complete for").choices(SHELLS));
  examples(completion, [
    "source <(partner-cli completion bash)",
    "partner-cli completion bash > ~/.local/share/bash-completion/completions/partner-cli",
    'partner-cli completion zsh > "${fpath[1]}/_partner-cli"',
    "partner-cli completion fish > ~/.config/fish/completions/partner-cli.fish",
    "partner-cli completion powershell >> $PROFILE",
  ]);
  // The run functions take the command-tree model (plain data), made here from the live tree.
  action(
    rt,
    completion,
    async () => {
      const [{ programTree }, { completionRun }] = await Promise.all([
        import("./tree.js"),
        import("../commands/completion/print.js"),
      ]);
      return {
        completionRun: (o: { shell: Shell; command: CommandUnknownOpts }, ctx: Context) =>
          completionRun({ shell: o.shell, tree: programTree(commanderView(o.command)) }, ctx),
      };
    },
    "completionRun",
    { adapt: (o, cmd) => ({ shell: o.shell as Shell, command: cmd }) },
  );

  const complete = program
    .command("__complete", { hidden: true })
    .description("the candidates for the last of WORDS (used by the completion scripts)")
    .argument("[words...]", "the words after partner-cli; the last is the one being completed")
    .option("--new-word", "complete a new, empty word after WORDS")
    .helpOption(false)
    .allowUnknownOption();
  action(
    rt,
    complete,
    async () => {
      const [{ programTree }, { completionCompleteRun }] = await Promise.all([
        import("./tree.js"),
        import("../commands/completion/complete.js"),
      ]);
      return {
        completionCompleteRun: (
          o: { words: string[]; newWord?: boolean | undefined; command: CommandUnknownOpts },
          ctx: Context,
        ) =>
          completionCompleteRun(
            {
              words: o.newWord ? [...o.words, ""] : o.words,
              tree: programTree(commanderView(o.command)),
            },
            ctx,
          ),
      };
    },
    "completionCompleteRun",
    { adapt: (o, cmd) => ({ words: o.words ?? [], newWord: o.newWord, command: cmd }) },
  );
}
