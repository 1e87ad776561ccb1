// Man pages (roff, man(7) macros) rendered from the command-tree model, like docs.ts: partner-cli.1
// (global options, the commands, the help topics as ENVIRONMENT / EXIT STATUS / ... sections) and
// one partner-cli-NOUN.1 per top-level command with all its verbs. scripts/gen-docs.mjs writes them
// into man/ (shipped through package.json "man"); test/cli/docs-drift.test.ts checks them.
import type { Command } from "commander";
import type { CommandNode, OptionInfo } from "../commands/completion/tree.js";
import { exampleLines } from "./help.js";
import { HELP_TOPICS, type HelpTopic } from "./help-topics.js";
import { programTree } from "./tree.js";

const SOURCE = "partner-cli";
const MANUAL = "partner-cli manual";

/** Text for roff: backslashes, hyphens and non-ASCII escaped, a control character at a line start neutralised. */
function roff(text: string): string {
  return text
    .replace(/\\/g, "\\e")
    .replace(/-/g, "\\-")
    .replace(
      /[\u{80}-\u{10FFFF}]/gu,
      (c) => `\\[u${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}]`,
    )
    .split("\n")
    .map((l) => (/^[.']/.test(l) ? `\\&${l}` : l))
    .join("\n");
}

function header(name: string, summary: string): string[] {
  return [
    `.\\" Generated from the command tree by "npm run docs" (scripts/gen-docs.mjs). Do not edit by hand.`,
    `.TH "${name.toUpperCase()}" "1" "" "${SOURCE}" "${MANUAL}"`,
    ".SH NAME",
    `${roff(name)} \\- ${roff(summary)}`,
  ];
}

function item(term: string, description: string): string[] {
  return [".TP", `\\fB${roff(term)}\\fR`, roff(description.replace(/\n+/g, " "))];
}

function optionItems(options: readonly OptionInfo[]): string[] {
  return options.flatMap((o) => item(o.term, o.help));
}

function examplesBlock(examples: readonly string[]): string[] {
  if (!examples.length) return [];
  // Lines fit an 80-column terminal inside the page's indents (7 + 4); long ones continue with \.
  const lines = examples.flatMap((e) => exampleLines(e, 71).map((l) => roff(l.slice(2))));
  return [".PP", "Examples:", ".PP", ".RS 4", ".nf", ...lines, ".fi", ".RE"];
}

function commandBlock(root: CommandNode, node: CommandNode, heading: string): string[] {
  const name = [root.name, ...node.path].join(" ");
  const out = [heading === "SH" ? ".SH DESCRIPTION" : `.SS "${roff(name)}"`];
  out.push(roff(node.longDescription));
  if (node.aliases.length) out.push(".PP", `Aliases: ${roff(node.aliases.join(", "))}`);
  out.push(".PP", `\\fB${roff(name)}\\fR ${roff(node.usage)}`);
  if (node.arguments.length)
    out.push(".PP", "Arguments:", ...node.arguments.flatMap((a) => item(a.term, a.help)));
  const options = node.options.filter((o) => o.long !== "--help");
  if (options.length) out.push(".PP", "Options:", ...optionItems(options));
  if (node.notes) out.push(".PP", roff(node.notes.replace(/([^\n])\n(?=[^\n\s-])/g, "$1 ")));
  out.push(...examplesBlock(node.examples));
  return out;
}

function topicSection(topic: HelpTopic, title: string): string[] {
  const out = [`.SH ${title}`];
  for (const block of topic.blocks) {
    if (typeof block === "string") out.push(".PP", roff(block));
    else out.push(...block.flatMap(([t, d]) => item(t, d)));
  }
  return out;
}

const TOPIC_SECTIONS: Record<string, string> = {
  environment: "ENVIRONMENT",
  "exit-codes": "EXIT STATUS",
  formats: "OUTPUT",
  sandbox: "SANDBOX",
};

function mainPage(root: CommandNode): string[] {
  const out = header(root.name, root.longDescription);
  out.push(
    ".SH SYNOPSIS",
    `\\fB${root.name}\\fR \\fIcommand\\fR [\\fIverb\\fR] [\\fIarguments\\fR] [\\fIoptions\\fR]`,
  );
  out.push(".SH DESCRIPTION", roff(root.longDescription));
  if (root.notes) out.push(".PP", roff(root.notes.replace(/([^\n])\n(?=[^\n\s-])/g, "$1 ")));
  out.push(".SH OPTIONS", "These work with every command.", ...optionItems(root.options));
  out.push(".SH COMMANDS");
  for (const c of root.children) out.push(...item(`${root.name} ${c.name}`, c.longDescription));
  out.push(".PP", `Each has its own page: \\fB${root.name}\\-\\fIcommand\\fR(1).`);
  for (const t of HELP_TOPICS) out.push(...topicSection(t, TOPIC_SECTIONS[t.name] ?? t.name.toUpperCase()));
  out.push(...examplesBlock(root.examples));
  out.push(".SH SEE ALSO", root.children.map((c) => `\\fB${root.name}\\-${roff(c.name)}\\fR(1)`).join(",\n"));
  return out;
}

function nounPage(root: CommandNode, top: CommandNode): string[] {
  const out = header(`${root.name}-${top.name}`, top.description);
  out.push(".SH SYNOPSIS", `\\fB${root.name} ${roff(top.name)}\\fR ${roff(top.usage)}`);
  out.push(...commandBlock(root, top, "SH"));
  if (top.children.length) out.push(".SH COMMANDS");
  const visit = (node: CommandNode) => {
    for (const c of node.children) {
      out.push(...commandBlock(root, c, "SS"));
      visit(c);
    }
  };
  visit(top);
  out.push(".SH SEE ALSO", `\\fB${root.name}\\fR(1) for the global options, environment and exit status.`);
  return out;
}

/** The man pages: file name (partner-cli.1, partner-cli-NOUN.1) → roff. */
export function renderManPages(program: Command | CommandNode): Map<string, string> {
  const root = "children" in program ? program : programTree(program);
  const pages = new Map<string, string>();
  pages.set(`${root.name}.1`, `${mainPage(root).join("\n")}\n`);
  for (const top of root.children)
    pages.set(`${root.name}-${top.name}.1`, `${nounPage(root, top).join("\n")}\n`);
  return pages;
}
