// A plain model of the commander tree (visible commands, aliases, options), shared by the
// completion generators, so each script is derived from the same walk and never drifts.
import type { Command, Option } from "commander";
import { takesProfileName } from "../shared/profile-args.js";

export interface OptionInfo {
  long: string | undefined;
  short: string | undefined;
  /** Takes a required value (`--out <file>`): the next word is that value. */
  takesValue: boolean;
  choices: string[] | undefined;
  /** The value is a stored profile name (`--profile`). */
  profileValue: boolean;
  description: string;
}

export interface CommandNode {
  /** "root" for the program, else the path of primary names joined by "." (e.g. "profiles.list"). */
  id: string;
  path: string[];
  name: string;
  aliases: string[];
  description: string;
  options: OptionInfo[];
  /** The positional argument is a stored profile name. */
  profileArg: boolean;
  children: CommandNode[];
}

const SAFE_WORD = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const SAFE_FLAG = /^--?[A-Za-z0-9][A-Za-z0-9_-]*$/;

function isHidden(c: Command): boolean {
  return Boolean((c as unknown as { _hidden?: boolean })._hidden);
}

function optionInfo(o: Option): OptionInfo | undefined {
  const long = o.long && SAFE_FLAG.test(o.long) ? o.long : undefined;
  const short = o.short && SAFE_FLAG.test(o.short) ? o.short : undefined;
  if (!long && !short) return undefined;
  return {
    long,
    short,
    takesValue: Boolean(o.required),
    choices: o.argChoices?.filter((c) => SAFE_WORD.test(c)),
    profileValue: long === "--profile" && Boolean(o.required),
    description: oneLine(o.description),
  };
}

export function oneLine(s: string | undefined): string {
  return (s ?? "").split("\n")[0]!.trim();
}

const HELP: OptionInfo = {
  long: "--help",
  short: "-h",
  takesValue: false,
  choices: undefined,
  profileValue: false,
  description: "show help",
};

/** Walks the tree from `program` (hidden commands and options left out; --help added everywhere). */
export function commandTree(program: Command): CommandNode {
  const walk = (cmd: Command, path: string[]): CommandNode => {
    const options = cmd.options
      .filter((o) => !o.hidden)
      .map(optionInfo)
      .filter((o): o is OptionInfo => o !== undefined);
    if (!options.some((o) => o.long === "--help")) options.push(HELP);
    if (path.length === 0 && !options.some((o) => o.long === "--version")) {
      options.push({
        long: "--version",
        short: "-V",
        takesValue: false,
        choices: undefined,
        profileValue: false,
        description: "print the version",
      });
    }
    return {
      id: path.length ? path.join(".") : "root",
      path,
      name: cmd.name(),
      aliases: cmd.aliases().filter((a) => SAFE_WORD.test(a)),
      description: oneLine(cmd.description()),
      options,
      profileArg: takesProfileName(cmd),
      children: cmd.commands
        .filter((c) => !isHidden(c) && SAFE_WORD.test(c.name()))
        .map((c) => walk(c, [...path, c.name()])),
    };
  };
  return walk(program, []);
}

/** Every node, parents before children. */
export function allNodes(root: CommandNode): CommandNode[] {
  const out: CommandNode[] = [];
  const visit = (n: CommandNode) => {
    out.push(n);
    for (const c of n.children) visit(c);
  };
  visit(root);
  return out;
}

export function flagsOf(o: OptionInfo): string[] {
  return [o.long, o.short].filter((f): f is string => f !== undefined);
}
