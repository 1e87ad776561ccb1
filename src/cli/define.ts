// Helpers for the declaration files in src/cli/: actions that build a Context and load the run
// module lazily, examples kept for --help and the generated docs, and option parsers. The
// declarations use @commander-js/extra-typings (commander itself, with types that follow each
// .option() and .argument()), so action() can check the options a command declares against the
// options interface its run function exports.
import {
  type Command,
  type CommandUnknownOpts,
  InvalidArgumentError,
  Option,
  type OptionValues,
} from "@commander-js/extra-typings";
import type { Command as CommanderCommand } from "commander";
import type { RunFunction } from "../commands/shared/run.js";
import type { Context, GlobalOptions } from "../context.js";
import { parseBoolean } from "../spec/boolean.js";
import { DURATION_EXAMPLES, parseDurationMs } from "../spec/duration.js";
import { setExamples } from "./help.js";

/** What the declarations need at run time; buildProgram(rt) hands it to every registrar. */
export interface CliRuntime {
  /** May answer a promise: the CLI loads the Context's module only when a command runs. */
  makeContext(globals: GlobalOptions): Context | Promise<Context>;
}

/**
 * A top-level noun declared in two steps from one declaration: `noun` declares the command as the
 * top-level help shows it (name, aliases, description; no options or arguments), `verbs` everything
 * under it. The CLI declares every noun at start-up and a noun's verbs only when commander dispatches
 * to it (src/program.ts); the docs, completion and tests build the whole tree.
 */
export interface LazyNoun {
  noun(program: Command): Command;
  verbs(noun: Command, rt: CliRuntime): void;
}

export function lazyNoun(
  noun: (program: Command) => Command,
  verbs: (noun: Command, rt: CliRuntime) => void,
): LazyNoun {
  return { noun, verbs };
}

/** The names a module exports that are run functions. */
type RunNames<M> = { [K in keyof M]: M[K] extends RunFunction<never> ? K : never }[keyof M] & string;
/** The options type a run function declares (its first parameter). */
type OptionsOf<F> = F extends (opts: infer O, ctx: Context) => Promise<unknown> ? O : never;

/** Options a command declares that its run function's options do not name, or name with another type. */
type Mismatched<Opts, O> = {
  [k in keyof Opts]-?: k extends keyof O ? (Opts[k] extends O[k] ? never : k) : k;
}[keyof Opts];
/** `name` when the declared options fit the run function's, else a type error naming the misfits. */
type Checked<Opts, M, K extends keyof M> = [Mismatched<Opts, OptionsOf<M[K]>>] extends [never]
  ? K
  : { "options not in the run function's options, or of another type": Mismatched<Opts, OptionsOf<M[K]>> };

export interface ActionHow<O> {
  /** The keys under which the positionals go into opts, in order (default: the declared names, camelCased). */
  args?: readonly (keyof O & string)[];
}

export interface AdaptedHow<Opts, O> extends ActionHow<O> {
  /**
   * Makes the run function's options from what commander parsed (the options, and the positionals
   * under the run function's other keys), adding a value kept aside or a parent's option.
   */
  adapt: (parsed: Opts & Omit<O, keyof Opts>, cmd: CommandUnknownOpts) => O;
}

/**
 * The same command object seen through commander's own types, which the tree's readers use (the
 * docs and completion generators, the tests): extra-typings only adds type parameters to them.
 */
export function commanderView(cmd: CommandUnknownOpts): CommanderCommand {
  return cmd as unknown as CommanderCommand;
}

/** Which run function a command is wired to (read by test/cli/wiring.test.ts). */
export interface Wiring {
  load: () => Promise<unknown>;
  name: string;
}
const wirings = new WeakMap<object, Wiring>();

export function wiringOf(cmd: object): Wiring | undefined {
  return wirings.get(cmd);
}

/**
 * Wires an action: global options → Context → `load()[name](opts, ctx)`, the run module imported
 * only when the command runs. `opts` holds the command's own options and its positionals by name.
 * The options the command declares must fit the options interface of the run function `name`
 * (checked by the compiler); with `adapt`, its result must.
 */
export function action<A extends unknown[], Opts extends OptionValues, M, K extends RunNames<M>>(
  rt: CliRuntime,
  cmd: Command<A, Opts, OptionValues>,
  load: () => Promise<M>,
  name: Checked<Opts, M, K>,
  how?: ActionHow<OptionsOf<M[K]>>,
): CommandUnknownOpts;
export function action<A extends unknown[], Opts extends OptionValues, M, K extends RunNames<M>>(
  rt: CliRuntime,
  cmd: Command<A, Opts, OptionValues>,
  load: () => Promise<M>,
  name: K,
  how: AdaptedHow<Opts, OptionsOf<M[K]>>,
): CommandUnknownOpts;
export function action<M>(
  rt: CliRuntime,
  cmd: CommandUnknownOpts,
  load: () => Promise<M>,
  name: unknown,
  how: ActionHow<unknown> & { adapt?: (parsed: never, cmd: CommandUnknownOpts) => unknown } = {},
): CommandUnknownOpts {
  wirings.set(cmd, { load, name: String(name) });
  return cmd.action(async (...all: unknown[]) => {
    const command = all[all.length - 1] as CommandUnknownOpts;
    const positionals = all.slice(0, -2);
    const names = how.args ?? command.registeredArguments.map((a) => camelCase(a.name()));
    const parsed: Record<string, unknown> = { ...command.opts() };
    // --format, --wide and --out of a list, get or report act in the Io, not in the run function.
    const output = outputOf(command, parsed);
    if (outputCommands.has(command)) for (const k of ["format", "wide", "out"]) delete parsed[k];
    names.forEach((key, i) => {
      parsed[key] = positionals[i];
    });
    const ctx = await rt.makeContext(globalsOf(command, output));
    const run = (await load())[name as keyof M] as RunFunction<unknown>;
    // The one place commander's result meets the run function: its type was checked above.
    await run(how.adapt ? how.adapt(parsed as never, command) : parsed, ctx);
  });
}

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

const text = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function globalsOf(
  command: CommandUnknownOpts,
  output: Pick<GlobalOptions, "format" | "wide" | "out">,
): GlobalOptions {
  const g = command.optsWithGlobals();
  return {
    ...output,
    profile: text(g.profile),
    baseUrl: text(g.baseUrl),
    json: Boolean(g.json) || output.format === "json" || output.format === "ndjson",
    color: g.color !== false,
    input: g.input !== false,
    yes: Boolean(g.yes),
    verbose: Boolean(g.verbose),
    sandbox: Boolean(g.sandbox),
    quiet: Boolean(g.quiet),
    fields: text(g.fields),
    jq: text(g.jq),
  };
}

/** Commands declared with outputOptions: their --format, --wide and --out act in the Io. */
const outputCommands = new WeakSet<object>();

/** The formats of lists, gets and reports (the same list as io/types.ts's OUTPUT_FORMATS). */
const FORMATS = "table, tsv, csv, json or ndjson";

/**
 * The output options of a list, get or report: --format (table|tsv|csv|json|ndjson), --wide, and
 * with `out` --out FILE. They act in one place, the Io (src/io/io.ts and render.ts), so the
 * command's type (what its run function must accept) stays as it was.
 */
export function outputOptions<C extends CommandUnknownOpts>(cmd: C, o: { out?: boolean } = {}): C {
  outputCommands.add(cmd);
  cmd.option(
    "--format <format>",
    `${FORMATS} (default: a table on a terminal, TSV when piped; --json is --format json)`,
  );
  cmd.option("--wide", "tables show every column at full width, however wide the terminal");
  if (o.out)
    cmd.option(
      "--out <file>",
      'write the output to FILE (whole or not at all, created 0600; format from its name: .csv, .tsv, .json, .ndjson); "-": stdout',
    );
  return cmd;
}

function outputOf(
  command: object,
  opts: Record<string, unknown>,
): Pick<GlobalOptions, "format" | "wide" | "out"> {
  if (!outputCommands.has(command)) return {};
  return { format: text(opts.format), wide: Boolean(opts.wide), out: text(opts.out) };
}

/** Adds examples to --help, docs/commands and the man pages (src/cli/help.ts keeps them). */
export function examples<C extends CommandUnknownOpts>(cmd: C, lines: string[]): C {
  setExamples(cmd, lines);
  return cmd;
}

export { examplesOf } from "./help.js";

export function parseIntArg(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError("expected a whole number");
    const n = Number(value);
    if (n < min || n > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `expected a number from ${min}`
          : `expected a number from ${min} to ${max}`,
      );
    return n;
  };
}

/**
 * --limit N of a list: the most items printed. `pagedFrom`: the list is read page by page, from
 * where (" (from --page)"; "" for a list without --page); absent: a list read whole.
 */
export function limitOption(noun: string, pagedFrom?: string) {
  const how =
    pagedFrom === undefined ? "" : `, reading as many pages as it takes${pagedFrom}; with --all, at most N`;
  return new Option(
    "--limit <n>",
    `print at most N ${noun}${how}; a hint on stderr says when more exist`,
  ).argParser(parseIntArg(1));
}

/** --page-size N of an export or sync: items per feed request (1-1000, default 1000). */
export function feedPageSizeOption(noun: string) {
  return new Option("--page-size <n>", `${noun} per feed request (1-1000, default 1000)`).argParser(
    parseIntArg(1, 1000),
  );
}

/**
 * The old name of an export's or sync's --page-size, kept for existing cron lines: hidden from help,
 * mapped to --page-size with a notice (src/commands/shared/list.ts feedPageSize).
 */
export function oldLimitOption() {
  return new Option("--limit <n>", "the old name of --page-size").argParser(parseIntArg(1, 1000)).hideHelp();
}

/** true/yes/1 or false/no/0, any case (the grammar: src/spec/boolean.ts). */
export function parseBoolArg(value: string): boolean {
  const b = parseBoolean(value);
  if (b === undefined) throw new InvalidArgumentError("expected true or false");
  return b;
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses "90s", "5m", "2h", "1d", "1h30m" or plain milliseconds into milliseconds (src/spec/duration.ts). */
export function parseDuration(value: string): number {
  const ms = parseDurationMs(value);
  if (ms === undefined) throw new InvalidArgumentError(`expected a duration like ${DURATION_EXAMPLES}`);
  return ms;
}
