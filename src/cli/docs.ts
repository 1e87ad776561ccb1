// The command reference in docs/commands/, rendered from the commander tree: one page per
// top-level command (a noun with its verbs, or a single command such as `login`) and a README
// index. scripts/gen-docs.mjs writes it; test/cli/docs-drift.test.ts checks it is up to date.
import type { Argument, Command, Help, Option } from "commander";
import { examplesOf, notesOf } from "./help.js";

const GENERATED_NOTE =
  "<!-- Generated from the command tree by `npm run docs` (scripts/gen-docs.mjs). Do not edit by hand. -->";

function isHidden(c: Command): boolean {
  return Boolean((c as unknown as { _hidden?: boolean })._hidden);
}

function visibleCommands(cmd: Command): Command[] {
  return cmd.commands.filter((c) => !isHidden(c));
}

function fullName(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

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

/** The notes shown in --help after the options (examples are rendered apart). */
function afterText(cmd: Command): string {
  return notesOf(cmd);
}

function optionRows(help: Help, options: readonly Option[]): string[] {
  return options.map((o) => `| ${cell(code(help.optionTerm(o)))} | ${cell(help.optionDescription(o))} |`);
}

function argumentRows(help: Help, args: readonly Argument[]): string[] {
  return args.map((a) => `| ${cell(code(help.argumentTerm(a)))} | ${cell(help.argumentDescription(a))} |`);
}

function isHelpOption(o: Option): boolean {
  return o.long === "--help";
}

/** One command's section: heading, description, aliases, usage, arguments, options, notes, examples. */
function commandSection(cmd: Command, level: number): string[] {
  const help = cmd.createHelp();
  const out: string[] = [];
  out.push(`${"#".repeat(level)} ${fullName(cmd)}`, "");
  if (cmd.description()) out.push(cmd.description(), "");
  if (cmd.aliases().length) out.push(`Aliases: ${cmd.aliases().map(code).join(", ")}`, "");
  out.push("```text", `Usage: ${fullName(cmd)} ${cmd.usage()}`.trimEnd(), "```", "");
  const args = help.visibleArguments(cmd);
  if (args.length)
    out.push("Arguments:", "", "| argument | description |", "|---|---|", ...argumentRows(help, args), "");
  const opts = help.visibleOptions(cmd).filter((o) => !isHelpOption(o));
  if (opts.length)
    out.push("Options:", "", "| option | description |", "|---|---|", ...optionRows(help, opts), "");
  const notes = afterText(cmd);
  if (notes) out.push(notes, "");
  const subs = visibleCommands(cmd);
  if (subs.length) {
    out.push("Commands:", "", "| command | description |", "|---|---|");
    for (const s of subs)
      out.push(`| [${fullName(s)}](#${anchor(fullName(s))}) | ${cell(s.description())} |`);
    out.push("");
  }
  const ex = examplesOf(cmd);
  if (ex.length) out.push("Examples:", "", "```sh", ...ex, "```", "");
  return out;
}

function pageFor(top: Command): string {
  const out: string[] = [GENERATED_NOTE, ""];
  out.push(...commandSection(top, 1));
  const visit = (cmd: Command, level: number) => {
    for (const c of visibleCommands(cmd)) {
      out.push(...commandSection(c, level));
      visit(c, level + 1);
    }
  };
  visit(top, 2);
  out.push(
    `Global options (${code("--profile")}, ${code("--json")}, ...) are listed in [the index](README.md).`,
    "",
  );
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

function indexPage(program: Command, pages: [string, Command][]): string {
  const help = program.createHelp();
  const out: string[] = [GENERATED_NOTE, ""];
  out.push(`# ${program.name()} command reference`, "");
  if (program.description()) out.push(program.description(), "");
  out.push("```text", `Usage: ${program.name()} <noun> <verb> [arguments] [options]`, "```", "");
  out.push(
    "Every command has `--help` with examples. See also [configuration](../configuration.md) and [exit codes](../exit-codes.md).",
    "",
  );
  out.push("## Global options", "", "These work with every command.", "");
  const globals = help.visibleOptions(program).filter((o) => !isHelpOption(o) && o.long !== "--version");
  out.push("| option | description |", "|---|---|", ...optionRows(help, globals), "");
  out.push(
    `${code(`${program.name()} --version`)} prints the version; ${code("--help")} after any command shows its help.`,
    "",
  );
  const notes = afterText(program)
    .replace(/\n*Examples:[\s\S]*$/, "")
    .trim();
  if (notes) out.push(notes, "");
  out.push("## Commands", "", "| command | description |", "|---|---|");
  for (const [file, top] of pages) {
    out.push(`| [${fullName(top)}](${file}) | ${cell(top.description())} |`);
    const visit = (cmd: Command) => {
      for (const c of visibleCommands(cmd)) {
        out.push(`| [${fullName(c)}](${file}#${anchor(fullName(c))}) | ${cell(c.description())} |`);
        visit(c);
      }
    };
    visit(top);
  }
  out.push("");
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

/** The docs/commands/ tree: file name → Markdown. README.md is the index. */
export function renderCommandDocs(program: Command): Map<string, string> {
  const pages: [string, Command][] = visibleCommands(program).map((c) => [`${c.name()}.md`, c]);
  const files = new Map<string, string>();
  files.set("README.md", indexPage(program, pages));
  for (const [file, top] of pages) files.set(file, pageFor(top));
  return files;
}
