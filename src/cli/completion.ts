// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell code, not templates
// completion bash | zsh | fish | powershell, and the hidden `__complete` the scripts ask for values.
import { Argument, type Command } from "commander";
import type { Shell } from "../commands/completion/generate.js";
import { action, examples } from "./define.js";

export { completesProfileNames, takesProfileName } from "./tree.js";

const SHELLS: Shell[] = ["bash", "zsh", "fish", "powershell"];

export function registerCompletion(program: Command): void {
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
  action(completion, async (ctx, args, _opts, cmd) => {
    const [{ programTree }, { completionRun }] = await Promise.all([
      import("./tree.js"),
      import("../commands/completion/print.js"),
    ]);
    await completionRun({ shell: args[0] as Shell, tree: programTree(cmd) }, ctx);
  });

  const complete = program
    .command("__complete", { hidden: true })
    .description("the candidates for the last of WORDS (used by the completion scripts)")
    .argument("[words...]", "the words after partner-cli; the last is the one being completed")
    .option("--new-word", "complete a new, empty word after WORDS")
    .helpOption(false)
    .allowUnknownOption();
  action(complete, async (ctx, args, opts, cmd) => {
    const [{ programTree }, { completionCompleteRun }] = await Promise.all([
      import("./tree.js"),
      import("../commands/completion/complete.js"),
    ]);
    const words = opts.newWord ? [...args, ""] : args;
    await completionCompleteRun({ words, tree: programTree(cmd) }, ctx);
  });
}
