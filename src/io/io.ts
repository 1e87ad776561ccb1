// Streams and the facts about them that decide how output looks, and the ONE place where the
// global output options act: --quiet (notices off), --format/--json (the format lists, gets and
// reports take; see render.ts), --out (stdout's data goes to a file, written whole or not at all),
// --fields and --jq (the JSON a command prints is shaped before it reaches stdout; see shaping.ts
// and shape.ts, loaded only when one of them is given).
import type { Writable } from "node:stream";
import type { WriteStream } from "node:tty";
import { UsageError } from "../errors.js";
import { colorEnabled } from "./colors.js";
import { createShaping, type Shaping } from "./shaping.js";
import { type Io, type IoStreams, OUTPUT_FORMATS, type OutputFormat } from "./types.js";
import { visibleLine } from "./visible.js";

export { type Io, type IoStreams, OUTPUT_FORMATS, type OutputFormat } from "./types.js";

export interface OutputOptions {
  json: boolean;
  noColor: boolean;
  env: NodeJS.ProcessEnv;
  quiet?: boolean | undefined;
  /** --fields, as given ("a,b.c"). */
  fields?: string | undefined;
  /** --jq, as given. */
  jq?: string | undefined;
  /** --format, as given. */
  format?: string | undefined;
  /** --wide. */
  wide?: boolean | undefined;
  /** --out FILE ("-": stdout). */
  out?: string | undefined;
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

const FORMAT_BY_EXTENSION: Record<string, OutputFormat> = {
  ".json": "json",
  ".ndjson": "ndjson",
  ".jsonl": "ndjson",
  ".csv": "csv",
  ".tsv": "tsv",
};

/**
 * The format of this run: --format (checked), else --json, else the name of --out's file, else a
 * table on a terminal and TSV elsewhere. --json with another --format is a usage error.
 */
function resolveFormat(
  opts: Pick<OutputOptions, "format" | "json" | "out">,
  stdoutIsTTY: boolean,
): { format: OutputFormat; given: boolean } {
  const asked = opts.format?.trim().toLowerCase();
  if (asked !== undefined && !(OUTPUT_FORMATS as readonly string[]).includes(asked))
    throw new UsageError(
      `--format must be one of ${OUTPUT_FORMATS.join(", ")}, not "${opts.format}".`,
      "--json is the short form of --format json.",
    );
  const given = asked as OutputFormat | undefined;
  if (opts.json && given !== undefined && given !== "json" && given !== "ndjson")
    throw new UsageError(
      `--json asks for JSON and --format for ${given}: give one of them.`,
      "--json is the short form of --format json.",
    );
  if (given) return { format: given, given: true };
  if (opts.json) return { format: "json", given: true };
  const ext = opts.out?.match(/\.[^./\\]+$/)?.[0]?.toLowerCase();
  const byName = ext ? FORMAT_BY_EXTENSION[ext] : undefined;
  if (byName) return { format: byName, given: true };
  return { format: stdoutIsTTY ? "table" : "tsv", given: false };
}

/** Terminal columns for tables: COLUMNS when set, else the terminal's width, else 80. */
function terminalWidth(env: NodeJS.ProcessEnv, columns: number | undefined): number {
  const fromEnv = Number(env.COLUMNS);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  return columns && columns > 0 ? columns : 80;
}

/**
 * stdout's writer: in order, even when a piece is made asynchronously (outLater); into a buffer
 * written to --out's file by `commit`.
 */
class OrderedOut {
  private chain: Promise<void> | undefined;
  private buffered: string[] | undefined;
  private failure: unknown;
  constructor(
    private readonly stdout: Writable,
    private readonly file: string | undefined,
  ) {
    if (file !== undefined) this.buffered = [];
  }

  write(text: string): void {
    if (this.chain) this.chain = this.chain.then(() => this.put(text));
    else this.put(text);
  }

  later(make: () => Promise<string>): void {
    this.chain = (this.chain ?? Promise.resolve()).then(async () => {
      if (this.failure !== undefined) return;
      try {
        this.put(await make());
      } catch (err) {
        this.failure = err;
      }
    });
  }

  private put(text: string): void {
    if (this.buffered) this.buffered.push(text);
    else this.stdout.write(text);
  }

  /** Waits for the pieces made later; writes --out's file (atomically, created 0600) unless failed. */
  async commit(failed: boolean): Promise<void> {
    await this.chain;
    if (this.failure !== undefined && !failed) throw this.failure;
    if (this.file === undefined || failed) return;
    const { writeWholeFile } = await import("./private-file.js");
    await writeWholeFile(this.file, this.buffered!.join(""));
  }
}

/**
 * stderr's message lines, below which a live status line (a progress bar) may be drawn. Messages are
 * for people: invisible and direction-changing characters in them are shown escaped (visible.ts).
 */
function stderrLines(streams: IoStreams, quiet: boolean): Pick<Io, "err" | "status"> {
  // The status line drawn last, if any: every other stderr line goes above it.
  let status: string | null = null;
  const CLEAR_LINE = "\r\u001b[2K";
  return {
    err(line) {
      if (quiet) return;
      const shown = visibleLine(line);
      const text = shown.endsWith("\n") ? shown : `${shown}\n`;
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
  };
}

/** JSON on stdout: pretty on a terminal (one document), one line per item with ndjson. */
function jsonText(value: unknown, format: OutputFormat, pretty: boolean): string {
  if (format === "ndjson") {
    const items = Array.isArray(value) ? value : [value];
    return items.map((v) => `${JSON.stringify(v)}\n`).join("");
  }
  return `${JSON.stringify(value, null, pretty ? 2 : undefined)}\n`;
}

export function createIo(given: IoStreams, opts: OutputOptions): Io {
  const toFile = opts.out !== undefined && opts.out !== "-" ? opts.out : undefined;
  // Output going to a file is not for a terminal: no table sizing, no colours, no pretty JSON.
  const streams: IoStreams = toFile ? { ...given, stdoutIsTTY: false } : given;
  const fields = opts.fields !== undefined ? parseFields(opts.fields) : undefined;
  const jq = opts.jq;
  const chosen = resolveFormat(opts, streams.stdoutIsTTY);
  const wide = Boolean(opts.wide);
  const width = streams.stdoutIsTTY && !wide ? terminalWidth(opts.env, streams.stdoutColumns) : undefined;
  const color = colorEnabled({
    env: opts.env,
    noColorFlag: opts.noColor,
    stdoutIsTTY: streams.stdoutIsTTY,
    stderrIsTTY: streams.stderrIsTTY,
    hasColors: hasColorsOf(streams.stdout, opts.env),
  });
  // The command's output is JSON by nature (api): --fields keeps it JSON.
  let jsonNature = false;
  const format = (): OutputFormat => (jsonNature && !chosen.given ? "json" : chosen.format);
  const stdout = new OrderedOut(streams.stdout, toFile);
  const lines = stderrLines(streams, Boolean(opts.quiet));
  const aliases: Record<string, string> = {};
  const shaping: Shaping | undefined =
    fields !== undefined || jq !== undefined
      ? createShaping({
          fields,
          jq,
          format,
          write: (s) => stdout.write(s),
          note: (line) => lines.err(line),
          aliases: () => aliases,
          stdoutIsTTY: streams.stdoutIsTTY,
          width,
          wide,
          color,
        })
      : undefined;
  return {
    ...streams,
    ...lines,
    get json() {
      const f = format();
      return f === "json" || f === "ndjson" || shaping !== undefined;
    },
    get format() {
      return format();
    },
    formatGiven: chosen.given,
    width,
    wide,
    color,
    quiet: Boolean(opts.quiet),
    out(text) {
      if (shaping) shaping.text(text);
      else stdout.write(text);
    },
    outLater(make) {
      stdout.later(make);
    },
    outJson(value) {
      if (shaping) shaping.document(value);
      else stdout.write(jsonText(value, format(), streams.stdoutIsTTY));
    },
    outJsonText(text) {
      if (shaping) return shaping.documentText(text);
      stdout.write(prettyJsonText(text, streams.stdoutIsTTY));
    },
    jsonOutput() {
      jsonNature = true;
    },
    fieldAliases(more) {
      Object.assign(aliases, more);
    },
    async finish(o = {}) {
      const failed = Boolean(o.failed);
      if (shaping) await shaping.finish(failed);
      await stdout.commit(failed);
    },
  };
}

/** A JSON document given as text: as it came when piped; pretty on a terminal when it is JSON. */
function prettyJsonText(text: string, pretty: boolean): string {
  let shown = text;
  if (pretty) {
    try {
      shown = JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      // not JSON: shown as it came
    }
  }
  return shown.endsWith("\n") ? shown : `${shown}\n`;
}

/** The terminal's color answer for stdout (TERM=dumb and the like), when stdout is a terminal stream. */
function hasColorsOf(stdout: Writable, env: NodeJS.ProcessEnv): (() => boolean) | undefined {
  const ws = stdout as Partial<WriteStream>;
  return typeof ws.hasColors === "function" ? () => ws.hasColors!(env) : undefined;
}

/** Once per stream: a closed pipe (`partner-cli ... | head`) ends the process quietly, as other CLIs do. */
const quietWhenClosed = new WeakSet<Writable>();
function endsQuietlyOnClosedPipe<S extends Writable>(stream: S): S {
  if (quietWhenClosed.has(stream)) return stream;
  quietWhenClosed.add(stream);
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
  return stream;
}

export function processStreams(): IoStreams {
  // stderr's and stdin's streams are made when something asks for them (a command's Context does),
  // not for --help or --version: making a stream costs start-up time.
  return {
    stdout: endsQuietlyOnClosedPipe(process.stdout),
    get stderr() {
      return endsQuietlyOnClosedPipe(process.stderr);
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
    stdoutColumns: process.stdout.columns,
  };
}
