// THE command-tree model: a plain data description of the commander tree (commands, aliases,
// usage, arguments, options, notes, examples, what a value completes from), made by one walk.
// docs/commands (src/cli/docs.ts), the man pages (src/cli/man.ts), the completion scripts
// (generate.ts) and `__complete` (complete.ts) all read it, so none walks commander itself.
// What commander does not hold (examples, notes, profile-name arguments) comes in through
// `TreeSources` (src/cli/tree.ts), so this module imports nothing from src/cli/.
import type { Argument, Command, Help, Option } from "commander";
import { ENCODING_EXAMPLES } from "../../csv/decode.js";

/** Where the values of an argument or option come from, when they are not a fixed list. */
export type ValueSource = "profiles" | "campaigns";

export interface OptionInfo {
  long: string | undefined;
  short: string | undefined;
  /** As help shows it: `-o, --out <file>`. */
  term: string;
  /** Takes a required value (`--out <file>`): the next word is that value. */
  takesValue: boolean;
  /** The values to complete: commander's choices, or the known values of a flag such as --format. */
  choices: string[] | undefined;
  /** The value is a stored profile name (`--profile`). */
  profileValue: boolean;
  source: ValueSource | undefined;
  /** The first line of the description. */
  description: string;
  /** The description as help shows it (with choices and default). */
  help: string;
}

export interface ArgumentInfo {
  term: string;
  help: string;
  choices: string[] | undefined;
  source: ValueSource | undefined;
}

export interface CommandNode {
  /** "root" for the program, else the path of primary names joined by "." (e.g. "profiles.list"). */
  id: string;
  path: string[];
  name: string;
  aliases: string[];
  /** The first line of the description. */
  description: string;
  /** The whole description. */
  longDescription: string;
  /** Commander's usage after the path: `[options] <name>`. */
  usage: string;
  arguments: ArgumentInfo[];
  options: OptionInfo[];
  /** The positional argument is a stored profile name. */
  profileArg: boolean;
  /** Where the first positional argument's values come from. */
  argSource: ValueSource | undefined;
  notes: string;
  examples: string[];
  /** The help topics (`partner-cli help TOPIC`), on the root only. */
  topics: string[];
  children: CommandNode[];
}

/** What the declarations know beyond commander (src/cli/help.ts, src/cli/tree.ts). */
export interface TreeSources {
  examplesOf(cmd: Command): string[];
  notesOf(cmd: Command): string;
  takesProfileName(cmd: Command): boolean;
  topics: string[];
}

const SAFE_WORD = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const SAFE_FLAG = /^--?[A-Za-z0-9][A-Za-z0-9_-]*$/;

/** Known values of flags declared without commander choices, kept to those the description names. */
const KNOWN_VALUES: Record<string, string[]> = {
  "--format": ["table", "tsv", "csv", "json", "ndjson", "xlsx"],
  "--state": ["counted", "excluded", "test_code"],
  "--encoding": ENCODING_EXAMPLES,
};
/** Flags whose descriptions name only examples of their values: every known value is offered. */
const EXAMPLES_ONLY = new Set(["--encoding"]);

/** A command's own subcommands that its help lists (not hidden), read through commander's public Help. */
export function visibleChildren(cmd: Command): Command[] {
  const visible = new Set(cmd.createHelp().visibleCommands(cmd));
  return cmd.commands.filter((c) => visible.has(c));
}

export function oneLine(s: string | undefined): string {
  return (s ?? "").split("\n")[0]!.trim();
}

function knownValues(long: string | undefined, description: string): string[] | undefined {
  const all = long ? KNOWN_VALUES[long] : undefined;
  if (!all) return undefined;
  if (EXAMPLES_ONLY.has(long!)) return all;
  const named = all.filter((v) => new RegExp(`\\b${v}\\b`).test(description));
  return named.length ? named : all;
}

function sourceOf(what: string, description: string): ValueSource | undefined {
  if (what === "--campaign" || /^campaign id\b/i.test(description)) return "campaigns";
  return undefined;
}

function optionInfo(o: Option, help: Help): OptionInfo | undefined {
  const long = o.long && SAFE_FLAG.test(o.long) ? o.long : undefined;
  const short = o.short && SAFE_FLAG.test(o.short) ? o.short : undefined;
  if (!long && !short) return undefined;
  const description = oneLine(o.description);
  const takesValue = Boolean(o.required);
  return {
    long,
    short,
    term: help.optionTerm(o),
    takesValue,
    choices: takesValue
      ? (o.argChoices?.filter((c) => SAFE_WORD.test(c)) ?? knownValues(long, o.description))
      : undefined,
    profileValue: long === "--profile" && takesValue,
    source: takesValue ? sourceOf(long ?? "", o.description) : undefined,
    description,
    help: help.optionDescription(o),
  };
}

function argumentInfo(a: Argument, help: Help): ArgumentInfo {
  return {
    term: help.argumentTerm(a),
    help: help.argumentDescription(a),
    choices: a.argChoices?.filter((c) => SAFE_WORD.test(c)),
    source: sourceOf("", a.description),
  };
}

/** Walks the tree from `program` (hidden commands and options left out; --help everywhere). */
export function commandTree(program: Command, from: TreeSources): CommandNode {
  const walk = (cmd: Command, path: string[]): CommandNode => {
    const help = cmd.createHelp();
    const options = help
      .visibleOptions(cmd)
      .map((o) => optionInfo(o, help))
      .filter((o): o is OptionInfo => o !== undefined);
    const args = help.visibleArguments(cmd).map((a) => argumentInfo(a, help));
    const profileArg = from.takesProfileName(cmd);
    return {
      id: path.length ? path.join(".") : "root",
      path,
      name: cmd.name(),
      aliases: cmd.aliases().filter((a) => SAFE_WORD.test(a)),
      description: oneLine(cmd.description()),
      longDescription: cmd.description(),
      usage: cmd.usage(),
      arguments: args,
      options,
      profileArg,
      argSource: profileArg ? "profiles" : args[0]?.source,
      notes: from.notesOf(cmd),
      examples: from.examplesOf(cmd),
      topics: path.length ? [] : from.topics,
      children: visibleChildren(cmd)
        .filter((c) => SAFE_WORD.test(c.name()))
        .map((c) => walk(c, [...path, c.name()])),
    };
  };
  return walk(program, []);
}

/**
 * What completion reads of the tree: the model `__complete` answers from. bin/ answers `__complete`
 * from a copy of it written by `npm run docs` (src/commands/completion/model.json, through
 * src/commands/completion/fast.ts) without loading the program; test/cli/docs-drift.test.ts holds
 * that copy equal to this model of the program.
 */
export interface CompletionOption {
  long?: string | undefined;
  short?: string | undefined;
  takesValue: boolean;
  choices?: string[] | undefined;
  profileValue: boolean;
  source?: ValueSource | undefined;
  description: string;
}
export interface CompletionNode {
  id: string;
  path: string[];
  name: string;
  aliases: string[];
  description: string;
  arguments: { choices?: string[] | undefined; source?: ValueSource | undefined }[];
  options: CompletionOption[];
  argSource?: ValueSource | undefined;
  topics: string[];
  children: CompletionNode[];
}

/** The completion model of a tree (the fields above, nothing else). */
export function completionModel(n: CommandNode): CompletionNode {
  return {
    id: n.id,
    path: n.path,
    name: n.name,
    aliases: n.aliases,
    description: n.description,
    arguments: n.arguments.map((a) => ({ choices: a.choices, source: a.source })),
    options: n.options.map((o) => ({
      long: o.long,
      short: o.short,
      takesValue: o.takesValue,
      choices: o.choices,
      profileValue: o.profileValue,
      source: o.source,
      description: o.description,
    })),
    argSource: n.argSource,
    topics: n.topics,
    children: n.children.map(completionModel),
  };
}

/** Every node, parents before children. */
export function allNodes<N extends { children: N[] }>(root: N): N[] {
  const out: N[] = [];
  const visit = (n: N) => {
    out.push(n);
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}

export function flagsOf(o: Pick<CompletionOption, "long" | "short">): string[] {
  return [o.long, o.short].filter((f): f is string => f !== undefined);
}

/** The program's options that every command accepts (all but --version and --help). */
export function globalOptions<O extends CompletionOption>(root: { options: O[] }): O[] {
  return root.options.filter((o) => o.long !== "--version" && o.long !== "--help");
}

/** The options valid at a node: its own, then the program's (commander accepts those anywhere). */
export function optionsAt<O extends CompletionOption>(node: { options: O[] }, root: { options: O[] }): O[] {
  if (node === root) return node.options;
  const own = new Set(node.options.flatMap(flagsOf));
  return [...node.options, ...globalOptions(root).filter((g) => !flagsOf(g).some((f) => own.has(f)))];
}
