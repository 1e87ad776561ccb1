// `--help` like gh's: every line fits the terminal (COLUMNS honoured, 80 when piped), long terms put
// their description on the next line, every leaf lists the flags it inherits, notes and examples
// are part of the help text (wrapped; a long example continues with " \\" so it still runs as
// written). program.ts applies it to the whole tree with configureHelp(). A command's help is read
// from the tree as a page of data (helpPage) and laid out by help-layout.ts, which bin/ also uses,
// without the program, for the top-level --help.
import { type Command, Help, type Option } from "commander";
import { type HelpItem, type HelpPage, renderHelp } from "./help-layout.js";

export { exampleLines, helpWidth, shellWords, wrapText } from "./help-layout.js";

// Keyed by the command object, whichever typing of commander the caller holds (the declarations
// use @commander-js/extra-typings, the tree's readers commander's own).
const notesMap = new WeakMap<object, string>();
const examplesMap = new WeakMap<object, string[]>();

/** Paragraphs shown after a command's options (help and generated docs). Lines join when wrapped. */
export function notes<C extends object>(cmd: C, text: string): C {
  notesMap.set(cmd, text.trim());
  return cmd;
}

export function notesOf(cmd: object): string {
  return notesMap.get(cmd) ?? "";
}

/** Example command lines shown in --help, the docs and the man pages. */
export function setExamples<C extends object>(cmd: C, lines: string[]): C {
  examplesMap.set(cmd, lines);
  return cmd;
}

export function examplesOf(cmd: object): string[] {
  return examplesMap.get(cmd) ?? [];
}

/** The flags a leaf accepts from its ancestors (the program's global options), --help last. */
export function inheritedOptions(cmd: Command): Option[] {
  const out: Option[] = [];
  for (let c = cmd.parent; c; c = c.parent) {
    out.push(...c.options.filter((o) => !o.hidden && o.long !== "--version" && o.long !== "--help"));
  }
  return out;
}

function isLeaf(cmd: Command): boolean {
  return cmd.commands.length === 0 && cmd.parent !== null;
}

/** The widest term of a command's help: its options, arguments, commands and inherited flags. */
function widestTerm(cmd: Command, helper: Help): number {
  return Math.max(
    Help.prototype.padWidth.call(helper, cmd, helper),
    ...inheritedOptions(cmd).map((o) => helper.displayWidth(helper.optionTerm(o))),
  );
}

const LEARN_MORE =
  'Learn more: "partner-cli help <command> [<verb>]" for a command; "partner-cli help <topic>" for environment, exit-codes, formats or sandbox.';

/** The sections commander's Help.formatHelp shows: arguments, options and commands, by help group. */
function sections(cmd: Command, helper: Help): { heading: string; items: HelpItem[] }[] {
  const out = [
    {
      heading: helper.styleTitle("Arguments:"),
      items: helper.visibleArguments(cmd).map((a) => ({
        term: helper.styleArgumentTerm(helper.argumentTerm(a)),
        description: helper.styleArgumentDescription(helper.argumentDescription(a)),
      })),
    },
  ];
  const option = (o: Option) => ({
    term: helper.styleOptionTerm(helper.optionTerm(o)),
    description: helper.styleOptionDescription(helper.optionDescription(o)),
  });
  const options = helper.groupItems(
    cmd.options as Option[],
    helper.visibleOptions(cmd),
    (o) => o.helpGroupHeading ?? "Options:",
  );
  for (const [group, list] of options)
    out.push({ heading: helper.styleTitle(group), items: list.map(option) });
  if (helper.showGlobalOptions)
    out.push({
      heading: helper.styleTitle("Global Options:"),
      items: helper.visibleGlobalOptions(cmd).map(option),
    });
  const commands = helper.groupItems(
    cmd.commands as Command[],
    helper.visibleCommands(cmd),
    (c) => c.helpGroup() || "Commands:",
  );
  for (const [group, list] of commands)
    out.push({
      heading: helper.styleTitle(group),
      items: list.map((c) => ({
        term: helper.styleSubcommandTerm(helper.subcommandTerm(c)),
        description: helper.styleSubcommandDescription(helper.subcommandDescription(c)),
      })),
    });
  return out;
}

/** What `cmd`'s help shows, as data (help-layout.ts lays it out). */
export function helpPage(cmd: Command, helper: Help): HelpPage {
  const description = helper.commandDescription(cmd);
  return {
    usage: `${helper.styleTitle("Usage:")} ${helper.styleUsage(helper.commandUsage(cmd))}`,
    description: description.length > 0 ? helper.styleCommandDescription(description) : "",
    sections: sections(cmd, helper),
    inherited: isLeaf(cmd)
      ? inheritedOptions(cmd).map((o) => ({
          term: helper.optionTerm(o),
          description: helper.optionDescription(o),
        }))
      : [],
    termWidth: widestTerm(cmd, helper),
    minWidthToWrap: helper.minWidthToWrap,
    notes: notesOf(cmd),
    examples: examplesOf(cmd),
    footer: cmd.parent === null ? LEARN_MORE : "",
  };
}

function formatHelp(cmd: Command, helper: Help): string {
  return renderHelp(helpPage(cmd, helper), helper.helpWidth ?? 80);
}

/** Applies this help to `program` and every command declared on it afterwards. */
export function configureHelp(program: Command, width: number): void {
  program.configureHelp({ helpWidth: width, formatHelp });
}
