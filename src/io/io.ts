// Streams and the facts about them that decide how output looks, and the ONE place where the
// global output options act: --quiet (notices off), --fields and --jq (the JSON a command prints is
// shaped before it reaches stdout; see shape.ts, loaded only when one of them is given).
import type { Readable, Writable } from "node:stream";
import type { WriteStream } from "node:tty";
import { UsageError } from "../errors.js";
import { colorEnabled } from "./colors.js";
import type { Shaper, ShapeValue } from "./shape.js";

export interface IoStreams {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

export interface Io extends IoStreams {
  /**
   * Machine output on stdout: --json, or implied by --fields/--jq (commands print their JSON; the
   * Io picks fields, runs jq, or renders the picked fields as a table or TSV).
   */
  readonly json: boolean;
  /** ANSI colors allowed (see colorEnabled). */
  readonly color: boolean;
  /** --quiet: notices and progress are off; errors still print (main.ts writes them). */
  readonly quiet: boolean;
  /** Write data to stdout (as is, unless --fields/--jq shape it). */
  out(text: string): void;
  /** Write one message line to stderr (nothing with --quiet; a status line on show is cleared first and drawn again after). */
  err(line: string): void;
  /**
   * Shows a live status line (a progress bar) at the bottom of stderr, replacing the one shown; null
   * clears it. Only on a terminal and without --quiet: elsewhere a no-op.
   */
  status(line: string | null): void;
  /** Print a value as JSON on stdout (one document, pretty on a TTY). */
  outJson(value: unknown): void;
  /**
   * Print one JSON document given as text (the service's own bytes): as is when piped, pretty on a
   * terminal; --jq reads the text unchanged, so numbers keep their digits.
   */
  outJsonText(text: string): void;
  /** The command's output is JSON by nature (`api`): --fields keeps it JSON instead of a table. */
  jsonOutput(): void;
  /**
   * Prints what --fields/--jq still hold and reports their failure (a jq error, an unknown field,
   * output that is not JSON). After a failed command (`failed`), incomplete output is dropped and
   * shaping failures are not reported over the command's own error.
   */
  finish(o?: { failed?: boolean }): Promise<void>;
}

export interface OutputOptions {
  json: boolean;
  noColor: boolean;
  env: NodeJS.ProcessEnv;
  quiet?: boolean | undefined;
  /** --fields, as given ("a,b.c"). */
  fields?: string | undefined;
  /** --jq, as given. */
  jq?: string | undefined;
}

/**
 * Parses --fields: comma-separated paths of dot-separated keys ("externalId,brand.name").
 * Throws a UsageError for an empty list or an empty key.
 */
export function parseFields(text: string): string[][] {
  const parts = text.split(",").map((p) => p.trim());
  if (parts.length === 0 || parts.every((p) => p === ""))
    throw new UsageError("--fields needs at least one field name.", 'Example: --fields "externalId,name"');
  const out: string[][] = [];
  for (const p of parts) {
    const keys = p.split(".");
    if (p === "" || keys.some((k) => k.trim() === ""))
      throw new UsageError(
        `--fields "${text}" has an empty field name.`,
        'Give field names separated by commas, nested keys with dots: --fields "id,offer.brand.name"',
      );
    out.push(keys.map((k) => k.trim()));
  }
  return out;
}

export function createIo(streams: IoStreams, opts: OutputOptions): Io {
  const fields = opts.fields !== undefined ? parseFields(opts.fields) : undefined;
  const jq = opts.jq;
  const shaping = fields !== undefined || jq !== undefined;
  const quiet = Boolean(opts.quiet);
  // The status line drawn last, if any: every other stderr line goes above it.
  let status: string | null = null;
  const CLEAR_LINE = "\r\u001b[2K";
  const color = colorEnabled({
    env: opts.env,
    noColorFlag: opts.noColor,
    stdoutIsTTY: streams.stdoutIsTTY,
    stderrIsTTY: streams.stderrIsTTY,
    hasColors: hasColorsOf(streams.stdout, opts.env),
  });
  // The JSON format was asked for (--json), or the command's output is JSON by nature (api).
  let jsonFormat = opts.json;

  // Shaping: complete JSON values go through a queue to the shaper (jq is asynchronous to load).
  let pendingText = "";
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  let shaper: Promise<Shaper> | undefined;
  const loadShaper = () =>
    (shaper ??= import("./shape.js").then((m) =>
      m.createShaper({
        fields,
        jq,
        format: jsonFormat || jq !== undefined ? "json" : "text",
        write: (s) => streams.stdout.write(s),
        stdoutIsTTY: streams.stdoutIsTTY,
        color,
      }),
    ));
  const enqueue = (v: ShapeValue) => {
    queue = queue.then(async () => {
      if (failure !== undefined) return;
      try {
        await (await loadShaper()).push(v);
      } catch (err) {
        failure = err;
      }
    });
  };
  /** Hands complete JSON texts written with out() to the shaper; `final` refuses what is left. */
  const drain = (final: boolean) => {
    const text = pendingText;
    if (text.trim() === "") {
      pendingText = "";
      return;
    }
    try {
      enqueue({ kind: "line", text, value: JSON.parse(text) });
      pendingText = "";
      return;
    } catch {
      // Several JSON lines (NDJSON) at once, or an incomplete value.
    }
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    if (lines.length > 1) {
      const values: ShapeValue[] = [];
      for (const line of lines) {
        try {
          values.push({ kind: "line", text: line, value: JSON.parse(line) });
        } catch {
          values.length = 0;
          break;
        }
      }
      if (values.length) {
        for (const v of values) enqueue(v);
        pendingText = "";
        return;
      }
    }
    if (final) {
      pendingText = "";
      if (failure === undefined)
        failure = new UsageError(
          `${jq !== undefined ? "--jq" : "--fields"} works on JSON output, and this command printed something else.`,
          "Leave it out for this command, or see its --help for a JSON form.",
        );
    }
  };

  return {
    ...streams,
    get json() {
      return jsonFormat || shaping;
    },
    color,
    quiet,
    out(text) {
      if (!shaping) {
        streams.stdout.write(text);
        return;
      }
      pendingText += text;
      if (text.endsWith("\n")) drain(false);
    },
    err(line) {
      if (quiet) return;
      const text = line.endsWith("\n") ? line : `${line}\n`;
      streams.stderr.write(status === null ? text : `${CLEAR_LINE}${text}${status}`);
    },
    status(line) {
      if (!streams.stderrIsTTY || quiet) return;
      if (line === null) {
        if (status !== null) streams.stderr.write(CLEAR_LINE);
        status = null;
        return;
      }
      status = line;
      streams.stderr.write(`${CLEAR_LINE}${line}`);
    },
    outJson(value) {
      if (!shaping) {
        streams.stdout.write(`${JSON.stringify(value, null, streams.stdoutIsTTY ? 2 : undefined)}\n`);
        return;
      }
      drain(false);
      enqueue({ kind: "document", value });
    },
    outJsonText(text) {
      if (!shaping) {
        let shown = text;
        if (streams.stdoutIsTTY) {
          try {
            shown = JSON.stringify(JSON.parse(text), null, 2);
          } catch {
            // not JSON: shown as it came
          }
        }
        streams.stdout.write(shown.endsWith("\n") ? shown : `${shown}\n`);
        return;
      }
      drain(false);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        pendingText += text;
        drain(true);
        return;
      }
      enqueue({ kind: "document", value, text });
    },
    jsonOutput() {
      jsonFormat = true;
    },
    async finish(o = {}) {
      if (!shaping) return;
      if (o.failed) pendingText = "";
      else drain(true);
      await queue;
      if (shaper && failure === undefined) {
        try {
          await (await shaper).end();
        } catch (err) {
          failure = err;
        }
      }
      if (failure !== undefined && !o.failed) throw failure;
    },
  };
}

/** The terminal's color answer for stdout (TERM=dumb and the like), when stdout is a terminal stream. */
function hasColorsOf(stdout: Writable, env: NodeJS.ProcessEnv): (() => boolean) | undefined {
  const ws = stdout as Partial<WriteStream>;
  return typeof ws.hasColors === "function" ? () => ws.hasColors!(env) : undefined;
}

export function processStreams(): IoStreams {
  // stderr's and stdin's streams are made when something asks for them (a command's Context does),
  // not for --help or --version: making a stream costs start-up time.
  return {
    stdout: process.stdout,
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    get stderrIsTTY() {
      return Boolean(process.stderr.isTTY);
    },
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
  };
}
