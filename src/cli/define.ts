// Helpers for the declaration files in src/cli/: actions that build a Context and load the run
// module lazily, examples kept for --help and the generated docs, and option parsers.
import { type Command, InvalidArgumentError } from "commander";
import type { RunFunction } from "../commands/shared/run.js";
import type { Context, GlobalOptions } from "../context.js";
import { parseBoolean } from "../spec/boolean.js";
import { DURATION_EXAMPLES, parseDurationMs } from "../spec/duration.js";

/** What the declarations need at run time; buildProgram(rt) hands it to every registrar. */
export interface CliRuntime {
  /** May answer a promise: the CLI loads the Context's module only when a command runs. */
  makeContext(globals: GlobalOptions): Context | Promise<Context>;
}

/** The names a module exports that are run functions. */
type RunNames<M> = { [K in keyof M]: M[K] extends RunFunction<never> ? K : never }[keyof M] & string;
/** The options type a run function declares (its first parameter). */
type OptionsOf<F> = F extends (opts: infer O, ctx: Context) => Promise<unknown> ? O : never;

export interface ActionHow<O> {
  /** The keys under which the positionals go into opts, in order (default: the declared names, camelCased). */
  args?: readonly (keyof O & string)[];
  /** Completes what commander cannot give (a value kept outside the options, a parent's option). */
  adapt?: (opts: O, cmd: Command) => O;
}

/** Which run function a command is wired to (read by test/cli/wiring.test.ts). */
export interface Wiring {
  load: () => Promise<unknown>;
  name: string;
}
const wirings = new WeakMap<Command, Wiring>();

export function wiringOf(cmd: Command): Wiring | undefined {
  return wirings.get(cmd);
}

/**
 * Wires an action: global options → Context → `load()[name](opts, ctx)`, the run module imported
 * only when the command runs. `opts` holds the command's own options and its positionals by name;
 * the run function's exported options interface is its type, checked here against `name`.
 */
export function action<M, K extends RunNames<M>>(
  rt: CliRuntime,
  cmd: Command,
  load: () => Promise<M>,
  name: K,
  how: ActionHow<OptionsOf<M[K]>> = {},
): Command {
  wirings.set(cmd, { load, name });
  return cmd.action(async (...all: unknown[]) => {
    const command = all[all.length - 1] as Command;
    const positionals = all.slice(0, -2);
    const names = how.args ?? command.registeredArguments.map((a) => camelCase(a.name()));
    const input: Record<string, unknown> = { ...command.opts() };
    names.forEach((key, i) => {
      input[key] = positionals[i];
    });
    // The one place commander's untyped result meets the run function's declared options.
    const opts = input as OptionsOf<M[K]>;
    const ctx = await rt.makeContext(globalsOf(command));
    const run = (await load())[name] as RunFunction<OptionsOf<M[K]>>;
    await run(how.adapt ? how.adapt(opts, command) : opts, ctx);
  });
}

function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

function globalsOf(command: Command): GlobalOptions {
  const g = command.optsWithGlobals();
  return {
    profile: g.profile,
    baseUrl: g.baseUrl,
    json: Boolean(g.json),
    color: g.color !== false,
    input: g.input !== false,
    yes: Boolean(g.yes),
    verbose: Boolean(g.verbose),
    sandbox: Boolean(g.sandbox),
    quiet: Boolean(g.quiet),
    fields: g.fields,
    jq: g.jq,
  };
}

const exampleMap = new WeakMap<Command, string[]>();

/** Adds an Examples section to --help and records it for docs/commands. */
export function examples(cmd: Command, lines: string[]): Command {
  exampleMap.set(cmd, lines);
  cmd.addHelpText("after", `\nExamples:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`);
  return cmd;
}

export function examplesOf(cmd: Command): string[] {
  return exampleMap.get(cmd) ?? [];
}

export function parseIntArg(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError("expected a whole number");
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    return n;
  };
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
