// run(argv) → exit code. The ONE table from error to exit code (cli-conventions.md) lives here.
// Never calls process.exit.
import { CommanderError } from "commander";
import type { Context, ContextInit, GlobalOptions, Target } from "./context.js";
import {
  ApiError,
  CancelledError,
  CliError,
  ConfigError,
  LockedError,
  NetworkError,
  PartialFailure,
  PendingError,
  ProtocolError,
  UsageError,
} from "./errors.js";
import { processStreams } from "./io/io.js";
import { buildProgram } from "./program.js";

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  negative: 3,
  auth: 4,
  notFound: 5,
  conflict: 6,
  temporary: 7,
  pending: 8,
  locked: 9,
  interrupted: 130,
} as const;

/** The exit code for an error. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof PartialFailure) return EXIT.negative;
  if (err instanceof PendingError) return EXIT.pending;
  if (err instanceof LockedError) return EXIT.locked;
  if (err instanceof CancelledError) return EXIT.interrupted;
  if (err instanceof ConfigError) return EXIT.auth;
  if (err instanceof NetworkError) return EXIT.temporary;
  if (err instanceof ApiError) {
    if (err.status === 400) return EXIT.usage;
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    if (err.status === 404) return EXIT.notFound;
    if (err.status === 409) return EXIT.conflict;
    if (err.status === 429 || err.status === 502 || err.status === 503 || err.status === 504)
      return EXIT.temporary;
    return EXIT.unexpected;
  }
  return EXIT.unexpected;
}

/** For a refused key: which key it was and where it was sent, so the fix is the right one. */
function unauthenticatedHint(t: Target | undefined): string {
  if (t?.source === "env")
    return `Check the key in PARTNER_API_KEY (it wins over any stored key) and that ${t.baseUrl} (from ${t.baseUrlSource}) is the service it belongs to.`;
  if (t?.source === "profile")
    return `Check the key of profile "${t.profileName}" (run "partner-cli login --profile ${t.profileName}" to replace it) and that ${t.baseUrl} (from ${t.baseUrlSource}) is the service it belongs to.`;
  return 'Check the API key: run "partner-cli login" again, or fix PARTNER_API_KEY.';
}

/** The next step to suggest for an API error that carries no hint of its own. */
function apiHint(err: ApiError, target: Target | undefined): string | undefined {
  switch (err.status) {
    case 401:
      return unauthenticatedHint(target);
    case 403:
      return "This key cannot do that (a read-only key cannot write). Use a key with write access.";
    case 404:
      return "Check the identifier; resources of other organizations are not visible.";
    case 429:
    case 502:
    case 503:
    case 504:
      return "The service is busy or unavailable; try again later.";
    case 500:
      return "The outcome is uncertain: read the resource back before you repeat the request.";
    default:
      return undefined;
  }
}

/** The lines printed on stderr for an error; `target` (when known) makes hints name the key's source. */
export function formatError(err: unknown, verbose: boolean, target?: Target): string[] {
  if (err instanceof ApiError) {
    const lines = [`Error: ${err.message} (${err.status} ${err.code}; ${err.method} ${err.path})`];
    for (const [field, msgs] of Object.entries(err.details ?? {}))
      lines.push(`  ${field}: ${msgs.join("; ")}`);
    const hint = err.hint ?? apiHint(err, target);
    if (hint) lines.push(hint);
    return lines;
  }
  if (err instanceof CliError) {
    const lines = [`${err instanceof CancelledError ? "" : "Error: "}${err.message}`];
    if (err.hint) lines.push(err.hint);
    if (err instanceof ProtocolError)
      lines.push("This looks like a bug or a service change; run again with --verbose and report it.");
    return lines;
  }
  const e = err as Error;
  const lines = [`Unexpected error: ${e?.message ?? String(err)}`];
  if (verbose && e?.stack) lines.push(e.stack);
  else lines.push("This is a bug in partner-cli; run again with --verbose for details and report it.");
  return lines;
}

export interface RunOptions extends Partial<Omit<ContextInit, "globals">> {}

export async function run(argv: string[], options: RunOptions = {}): Promise<number> {
  const streams = options.streams ?? processStreams();
  const env = options.env ?? process.env;
  let ctx: Context | undefined;
  const abort = new AbortController();
  const ownSignals = options.signal === undefined;
  // First Ctrl-C: commands stop at a safe point and exit 130. A second one, pressed by a person
  // (not within a second: libraries such as when-exit re-send the first signal at once), quits now.
  let firstSigintAt = 0;
  const onSigint = () => {
    if (abort.signal.aborted) {
      if (Date.now() - firstSigintAt > 1000) process.exit(EXIT.interrupted);
      return;
    }
    firstSigintAt = Date.now();
    abort.abort();
  };
  if (ownSignals) process.on("SIGINT", onSigint);

  // The Context (and what it imports) loads when a command runs, not for --help or a usage error.
  const makeContext = async (globals: GlobalOptions): Promise<Context> => {
    const { Context } = await import("./context.js");
    ctx = new Context({ ...options, streams, env, globals, signal: options.signal ?? abort.signal });
    return ctx;
  };
  const program = buildProgram({ makeContext, streams }, { lazyFor: argv });
  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version print and succeed; every other parse failure is a usage error.
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.exitCode === 0)
        return EXIT.ok;
      if (err.code === "commander.help") return EXIT.ok;
      return EXIT.usage;
    }
    const verbose = ctx?.verbose ?? false;
    for (const line of formatError(err, verbose, ctx?.resolvedTarget)) streams.stderr.write(`${line}\n`);
    return exitCodeFor(err);
  } finally {
    // After a Ctrl-C the listener stays: the echo some libraries send would otherwise end the
    // process by signal instead of with exit code 130 (a signal listener does not keep it alive).
    if (ownSignals && !abort.signal.aborted) process.off("SIGINT", onSigint);
    await ctx?.close();
  }
}
