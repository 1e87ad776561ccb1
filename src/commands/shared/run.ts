// The shape every run module exports: `<noun><Verb>Run(opts, ctx)`, the command's options and its
// positionals (by name) in one typed object, and the Context. src/cli/define.ts wires commander to it.
import type { Context } from "../../context.js";

export type RunFunction<O> = (opts: O, ctx: Context) => Promise<unknown>;

/** The options of a command that takes none. */
export type NoOptions = Readonly<Record<string, never>>;
