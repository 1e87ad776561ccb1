// Helpers for the declaration files in src/cli/: actions that build a Context and load the run
// module lazily, examples kept for --help and the generated docs, and option parsers.
import { type Command, InvalidArgumentError } from "commander";
import type { Context, GlobalOptions } from "../context.js";
import { setExamples } from "./help.js";

export interface CliRuntime {
  /** May answer a promise: the CLI loads the Context's module only when a command runs. */
  makeContext(globals: GlobalOptions): Context | Promise<Context>;
}

let runtime: CliRuntime | undefined;
export function setRuntime(rt: CliRuntime): void {
  runtime = rt;
}

// biome-ignore lint/suspicious/noExplicitAny: commander hands options over untyped; each run function types them.
export type Opts = Record<string, any>;
export type Action = (ctx: Context, args: string[], opts: Opts, cmd: Command) => Promise<void>;

/** Wires an action: global options → Context → the lazily imported run function. */
export function action(cmd: Command, fn: Action): Command {
  return cmd.action(async (...all: unknown[]) => {
    const command = all[all.length - 1] as Command;
    const opts = command.opts();
    const args = all
      .slice(0, -2)
      .flatMap((a) => (Array.isArray(a) ? a : a === undefined ? [] : [a])) as string[];
    const g = command.optsWithGlobals();
    const globals: GlobalOptions = {
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
    if (!runtime) throw new Error("CLI runtime not set");
    await fn(await runtime.makeContext(globals), args, opts, command);
  });
}

/** Adds examples to --help, docs/commands and the man pages (src/cli/help.ts keeps them). */
export function examples(cmd: Command, lines: string[]): Command {
  return setExamples(cmd, lines);
}

export { examplesOf } from "./help.js";

export function parseIntArg(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError("expected a whole number");
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    return n;
  };
}

export function parseBoolArg(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === "true" || v === "yes" || v === "1") return true;
  if (v === "false" || v === "no" || v === "0") return false;
  throw new InvalidArgumentError("expected true or false");
}

/** Collects a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses "90s", "5m", "2h", "1d", "1h30m" or plain milliseconds into milliseconds. */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(v); m; m = re.exec(v)) {
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
      m[2] as "ms" | "s" | "m" | "h" | "d"
    ];
    total += Number(m[1]) * unit;
    matched = re.lastIndex;
  }
  if (matched !== v.length || v.length === 0)
    throw new InvalidArgumentError('expected a duration like "90s", "5m", "2h" or "1d"');
  return Math.round(total);
}
