// `partner-cli help [command...]` and `partner-cli help TOPIC`: the help of any command in the tree
// (`help campaigns create` is the leaf's help), a help topic, or exit 2 with a suggestion.
import type { Command as TypedCommand } from "@commander-js/extra-typings";
import type { Command } from "commander";
import { commanderView } from "./define.js";
import { setExamples, wrapText } from "./help.js";
import { findTopic, HELP_TOPICS, type HelpTopic } from "./help-topics.js";

/** A topic as terminal text, `width` columns wide. */
function renderTopic(topic: HelpTopic, width: number): string {
  const out: string[] = [wrapText(`${topic.name}: ${topic.summary}`, width), ""];
  for (const block of topic.blocks) {
    if (typeof block === "string") {
      out.push(wrapText(block, width), "");
      continue;
    }
    const termWidth = Math.min(Math.max(...block.map(([t]) => t.length)), Math.floor(width * 0.4));
    for (const [term, desc] of block) {
      const pad = " ".repeat(termWidth + 4);
      const body = wrapText(`${pad}${desc}`, width).split("\n");
      if (term.length > termWidth) out.push(`  ${term}`, ...body);
      else out.push(`  ${term.padEnd(termWidth)}  ${body[0]!.trimStart()}`, ...body.slice(1));
    }
    out.push("");
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function findChild(cmd: Command, word: string): Command | undefined {
  return cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
}

/** What the user may have meant by `word` among `names`: the closest by edit distance. */
async function suggestion(word: string, names: string[]): Promise<string | undefined> {
  const { editDistance } = await import("../config/env-names.js");
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const n of names) {
    const d = editDistance(word.toLowerCase(), n.toLowerCase());
    if (d < bestDistance) {
      best = n;
      bestDistance = d;
    }
  }
  return best;
}

async function unknown(words: string[], at: Command, program: Command): Promise<never> {
  const word = words[words.length - 1]!;
  const { visibleChildren } = await import("../commands/completion/tree.js");
  const names = visibleChildren(at).flatMap((c) => [c.name(), ...c.aliases()]);
  if (at === program) names.push(...HELP_TOPICS.map((t) => t.name));
  const near = await suggestion(word, names);
  const { UsageError } = await import("../errors.js");
  const what = at === program ? "command or help topic" : `verb of "${words.slice(0, -1).join(" ")}"`;
  throw new UsageError(
    `No ${what} "${word}"${near ? ` (did you mean "${near}"?)` : ""}; nothing was run.`,
    at === program
      ? `Run "partner-cli help" for the commands, or "partner-cli help TOPIC" for ${HELP_TOPICS.map((t) => t.name).join(", ")}.`
      : `Run "partner-cli help ${words.slice(0, -1).join(" ")}" for its verbs.`,
  );
}

export function registerHelp(typed: TypedCommand): void {
  // The tree is walked through commander's own types (as the docs and completion do).
  const program = commanderView(typed);
  const help = program
    .command("help")
    .description(`show help for a command, or a topic: ${HELP_TOPICS.map((t) => t.name).join(", ")}`)
    .argument("[command...]", "a command (and verb), or a help topic");
  setExamples(help, [
    "partner-cli help campaigns create",
    "partner-cli help exit-codes",
    "partner-cli help environment",
  ]);
  help.action(async (words: string[]) => {
    const topic = words.length === 1 ? findTopic(words[0]!) : undefined;
    if (topic) {
      const width = program.createHelp().helpWidth ?? 80;
      program.configureOutput().writeOut?.(renderTopic(topic, width));
      return;
    }
    let target = program;
    for (const word of words) {
      const next = findChild(target, word);
      if (!next) await unknown(words.slice(0, words.indexOf(word) + 1), target, program);
      target = next!;
    }
    target.outputHelp();
  });
}
