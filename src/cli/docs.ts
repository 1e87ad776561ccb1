// The command reference in docs/commands/, rendered from the command-tree model (tree.ts): one page
// per top-level command (a noun with its verbs, or a single command such as `login`), the help
// topics on help.md, and a README index. scripts/gen-docs.mjs writes it (and the man pages, man.ts);
// test/cli/docs-drift.test.ts checks both are up to date.
import type { Command } from "commander";
import type { ArgumentInfo, CommandNode, OptionInfo } from "../commands/completion/tree.js";
import { HELP_TOPICS, type HelpTopic } from "./help-topics.js";
import { programTree } from "./tree.js";

const GENERATED_NOTE =
  "<!-- Generated from the command tree by `npm run docs` (scripts/gen-docs.mjs). Do not edit by hand. -->";

/** A GitHub-style heading anchor. */
export function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** Text safe inside a Markdown table cell. */
function cell(s: string): string {
  return s.replace(/\r?\n/g, " ").replace(/\|/g, "\\|").trim();
}

function code(s: string): string {
  return `\`${s}\``;
}

function optionRows(options: readonly OptionInfo[]): string[] {
  return options.map((o) => `| ${cell(code(o.term))} | ${cell(o.help)} |`);
}

function argumentRows(args: readonly ArgumentInfo[]): string[] {
  return args.map((a) => `| ${cell(code(a.term))} | ${cell(a.help)} |`);
}

function nameOf(root: CommandNode, node: CommandNode): string {
  return [root.name, ...node.path].join(" ");
}

/** One command's section: heading, description, aliases, usage, arguments, options, notes, examples. */
function commandSection(root: CommandNode, node: CommandNode, level: number): string[] {
  const name = nameOf(root, node);
  const out: string[] = [`${"#".repeat(level)} ${name}`, ""];
  if (node.longDescription) out.push(node.longDescription, "");
  if (node.aliases.length) out.push(`Aliases: ${node.aliases.map(code).join(", ")}`, "");
  out.push("```text", `Usage: ${name} ${node.usage}`.trimEnd(), "```", "");
  if (node.arguments.length)
    out.push(
      "Arguments:",
      "",
      "| argument | description |",
      "|---|---|",
      ...argumentRows(node.arguments),
      "",
    );
  const opts = node.options.filter((o) => o.long !== "--help");
  if (opts.length) out.push("Options:", "", "| option | description |", "|---|---|", ...optionRows(opts), "");
  if (node.notes) out.push(node.notes, "");
  if (node.children.length) {
    out.push("Commands:", "", "| command | description |", "|---|---|");
    for (const c of node.children)
      out.push(`| [${nameOf(root, c)}](#${anchor(nameOf(root, c))}) | ${cell(c.longDescription)} |`);
    out.push("");
  }
  if (node.examples.length) out.push("Examples:", "", "```sh", ...node.examples, "```", "");
  return out;
}

/** A help topic as a Markdown section. */
export function topicSection(topic: HelpTopic, level: number): string[] {
  const out = [`${"#".repeat(level)} ${topic.name}`, "", `${topic.summary}.`, ""];
  for (const block of topic.blocks) {
    if (typeof block === "string") out.push(block, "");
    else out.push("| | |", "|---|---|", ...block.map(([t, d]) => `| ${cell(code(t))} | ${cell(d)} |`), "");
  }
  return out;
}

function finish(lines: string[]): string {
  return `${lines
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

function pageFor(root: CommandNode, top: CommandNode): string {
  const out: string[] = [GENERATED_NOTE, ""];
  out.push(...commandSection(root, top, 1));
  const visit = (node: CommandNode, level: number) => {
    for (const c of node.children) {
      out.push(...commandSection(root, c, level));
      visit(c, level + 1);
    }
  };
  visit(top, 2);
  if (top.id === "help") {
    out.push("## Help topics", "");
    for (const t of HELP_TOPICS) out.push(...topicSection(t, 3));
  }
  out.push(
    `Global options (${code("--profile")}, ${code("--json")}, ...) are listed in [the index](README.md).`,
    "",
  );
  return finish(out);
}

function indexPage(root: CommandNode, pages: [string, CommandNode][]): string {
  const out: string[] = [GENERATED_NOTE, ""];
  out.push(`# ${root.name} command reference`, "");
  if (root.longDescription) out.push(root.longDescription, "");
  out.push("```text", `Usage: ${root.name} <noun> <verb> [arguments] [options]`, "```", "");
  out.push(
    "Every command has `--help` with examples. See also [configuration](../configuration.md) and [exit codes](../exit-codes.md).",
    "",
  );
  out.push("## Global options", "", "These work with every command.", "");
  const globals = root.options.filter((o) => o.long !== "--help" && o.long !== "--version");
  out.push("| option | description |", "|---|---|", ...optionRows(globals), "");
  out.push(
    `${code(`${root.name} --version`)} prints the version; ${code("--help")} after any command shows its help.`,
    "",
  );
  if (root.notes) out.push(root.notes, "");
  out.push("## Commands", "", "| command | description |", "|---|---|");
  for (const [file, top] of pages) {
    out.push(`| [${nameOf(root, top)}](${file}) | ${cell(top.longDescription)} |`);
    const visit = (node: CommandNode) => {
      for (const c of node.children) {
        out.push(`| [${nameOf(root, c)}](${file}#${anchor(nameOf(root, c))}) | ${cell(c.longDescription)} |`);
        visit(c);
      }
    };
    visit(top);
  }
  out.push("");
  return finish(out);
}

/** The docs/commands/ tree: file name → Markdown. README.md is the index. */
export function renderCommandDocs(program: Command | CommandNode): Map<string, string> {
  const root = "children" in program ? program : programTree(program);
  const pages: [string, CommandNode][] = root.children.map((c) => [`${c.name}.md`, c]);
  const files = new Map<string, string>();
  files.set("README.md", indexPage(root, pages));
  for (const [file, top] of pages) files.set(file, pageFor(root, top));
  return files;
}
