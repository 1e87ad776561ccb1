// run(argv) → exit code. The ONE table from error to exit code (docs/exit-codes.md) lives here.
// Never calls process.exit.
import { visibleLine } from "./io/visible.js";
import { Writable } from "node:stream";
import { CommanderError } from "commander";
import type { Context, ContextInit, GlobalOptions, Target } from "./context.js";
import {
  ApiError,
  CancelledError,
  CliError,
  ConfigError,
  type ErrorDetails,
  FeedContractError,
  LockedError,
  MachineError,
  NetworkError,
  NotFoundError,
  PartialFailure,
  PendingError,
  ProtocolError,
  SignatureMismatch,
  UsageError,
} from "./errors.js";
import { type IoStreams, parseFields, processStreams } from "./io/io.js";
import { machineFailure } from "./io/machine-failure.js";
import { buildProgram } from "./program.js";

// For scripts/build.mjs, which renders bin's answer to the top-level --help from it.

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
  machine: 10,
  interrupted: 130,
} as const;

/** The exit code for an error. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof PartialFailure) return EXIT.negative;
  if (err instanceof PendingError) return EXIT.pending;
  if (err instanceof LockedError) return EXIT.locked;
  if (err instanceof MachineError) return EXIT.machine;
  if (err instanceof CancelledError) return EXIT.interrupted;
  if (err instanceof ConfigError) return EXIT.auth;
  if (err instanceof FeedContractError) return EXIT.auth;
  if (err instanceof NetworkError) return EXIT.temporary;
  if (err instanceof NotFoundError) return EXIT.notFound;
  if (err instanceof ApiError) {
    if (err.status === 400) return EXIT.usage;
    if (err.status === 401 || err.status === 403) return EXIT.auth;
    if (err.status === 404) return EXIT.notFound;
    if (err.status === 409) return EXIT.conflict;
    if (err.status === 429 || err.status === 502 || err.status === 503 || err.status === 504)
      return EXIT.temporary;
    return EXIT.unexpected;
  }
  if (machineFailure(err)) return EXIT.machine;
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

/** The `error.code` of the JSON error object: the API's own code, else one per kind of error. */
function errorCode(err: unknown): string {
  if (err instanceof ApiError) return err.code;
  if (err instanceof CommanderError) return "usage_error";
  if (err instanceof UsageError) return "usage_error";
  if (err instanceof SignatureMismatch) return "signature_mismatch";
  if (err instanceof PartialFailure) return "partial_failure";
  if (err instanceof PendingError) return "pending";
  if (err instanceof LockedError) return "locked";
  if (err instanceof MachineError) return "machine_error";
  if (err instanceof CancelledError) return "interrupted";
  if (err instanceof ConfigError) return "config_error";
  if (err instanceof FeedContractError) return "feed_contract_broken";
  if (err instanceof NetworkError) return "network_error";
  if (err instanceof NotFoundError) return "not_found";
  if (err instanceof ProtocolError) return "protocol_error";
  return "unexpected_error";
}

export interface JsonError {
  error: {
    code: string;
    message: string;
    details: ErrorDetails | null;
    /** The next step, when there is one. */
    hint?: string;
    /** For an answer of the API: its HTTP status, method and path. */
    status?: number;
    method?: string;
    path?: string;
  };
  exitCode: number;
}

/** With --json, an error is this one object on stderr (one line). */
function jsonError(err: unknown, exitCode: number, target?: Target): JsonError {
  const e = err as Error;
  let message = e?.message ?? String(err);
  if (err instanceof CommanderError) message = message.replace(/^error: /, "");
  const out: JsonError = {
    error: { code: errorCode(err), message, details: err instanceof ApiError ? (err.details ?? null) : null },
    exitCode,
  };
  const hint =
    err instanceof ApiError
      ? (err.hint ?? apiHint(err, target))
      : err instanceof CliError
        ? err.hint
        : err instanceof CommanderError
          ? "Run with --help for usage."
          : "This is a bug in partner-cli; run again with --verbose for details and report it.";
  if (hint) out.error.hint = hint;
  if (err instanceof ApiError) {
    out.error.status = err.status;
    out.error.method = err.method;
    out.error.path = err.path;
  }
  return out;
}

/** Whether --json is on the command line (before a "--"): for errors found before a Context exists. */
function jsonAsked(argv: string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * `--version --verbose` and `--version --json` (with only flags besides) are the `version` command;
 * `--version` alone stays one line (bin/ answers it without the program).
 */
export function versionArgv(argv: string[]): string[] {
  const isVersion = (a: string) => a === "--version" || a === "-V";
  if (!argv.some(isVersion) || !argv.every((a) => a.startsWith("-")) || argv.includes("--")) return argv;
  if (!argv.includes("--verbose") && !argv.includes("--json")) return argv;
  return ["version", ...argv.filter((a) => !isVersion(a) && a !== "--verbose")];
}

export interface RunOptions extends Partial<Omit<ContextInit, "globals">> {}

/**
 * First Ctrl-C: commands stop at a safe point and exit 130. A second one, pressed by a person
 * (not within a second: libraries such as when-exit re-send the first signal at once), quits now.
 */
function sigintHandler(abort: AbortController): () => void {
  let firstSigintAt = 0;
  return () => {
    if (abort.signal.aborted) {
      if (Date.now() - firstSigintAt > 1000) process.exit(EXIT.interrupted);
      return;
    }
    firstSigintAt = Date.now();
    abort.abort();
  };
}

export async function run(given: string[], options: RunOptions = {}): Promise<number> {
  const argv = versionArgv(given);
  const streams = options.streams ?? processStreams();
  const env = options.env ?? process.env;
  let ctx: Context | undefined;
  const abort = new AbortController();
  const ownSignals = options.signal === undefined;
  const onSigint = sigintHandler(abort);
  if (ownSignals) process.on("SIGINT", onSigint);

  // The Context (and what it imports) loads when a command runs, not for --help or a usage error.
  const makeContext = async (globals: GlobalOptions): Promise<Context> => {
    const { Context } = await import("./context.js");
    ctx = new Context({ ...options, streams, env, globals, signal: options.signal ?? abort.signal });
    return ctx;
  };
  // With --json, commander's own error text is held back: a usage error replaces it with the JSON
  // error object; anything else it wrote (help shown for a bare group) is passed on.
  const json = jsonAsked(argv);
  let heldBack = "";
  const programStreams: Pick<IoStreams, "stdout" | "stderr"> = json
    ? {
        stdout: streams.stdout,
        stderr: new Writable({
          write: (chunk, _enc, done) => {
            heldBack += String(chunk);
            done();
          },
        }),
      }
    : streams;
  const program = buildProgram({ makeContext, streams: programStreams }, { lazy: true, env });
  // --fields and --jq are checked before the command does anything (a write is not half-reported).
  program.hook("preAction", async (_program, actionCommand) => {
    const g = actionCommand.optsWithGlobals();
    if (typeof g.fields === "string") parseFields(g.fields);
    if (typeof g.jq === "string") await (await import("./io/shape.js")).checkJq(g.jq);
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    streams.stderr.write(heldBack);
    await ctx?.io.finish();
    return EXIT.ok;
  } catch (caught) {
    // The machine's own failures (disk full, read-only, permissions...) that arrive raw: exit 10, not 1.
    const err = machineFailure(caught) ?? caught;
    await ctx?.io.finish({ failed: true }).catch(() => {});
    if (err instanceof CommanderError) {
      // Help and version print and succeed; every other parse failure is a usage error.
      if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.exitCode === 0) {
        streams.stderr.write(heldBack);
        return EXIT.ok;
      }
      if (err.code === "commander.help") {
        streams.stderr.write(heldBack);
        return EXIT.ok;
      }
      if (json) streams.stderr.write(`${JSON.stringify(jsonError(err, EXIT.usage))}\n`);
      return EXIT.usage;
    }
    const code = exitCodeFor(err);
    if (ctx?.globals.json ?? json) {
      streams.stderr.write(`${JSON.stringify(jsonError(err, code, ctx?.resolvedTarget))}\n`);
      return code;
    }
    const verbose = ctx?.verbose ?? false;
    // Shown as every message is (io.err): invisible and direction-changing characters escaped.
    for (const line of formatError(err, verbose, ctx?.resolvedTarget))
      streams.stderr.write(`${visibleLine(line)}\n`);
    return code;
  } finally {
    // After a Ctrl-C the listener stays: the echo some libraries send would otherwise end the
    // process by signal instead of with exit code 130 (a signal listener does not keep it alive).
    if (ownSignals && !abort.signal.aborted) process.off("SIGINT", onSigint);
    await ctx?.close();
  }
}
