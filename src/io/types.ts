// The Io every command prints through, and the output formats: types only, so the renderer
// (render.ts), the shaper (shape.ts) and the Io itself (io.ts) depend on this file, not on each other.
import type { Readable, Writable } from "node:stream";

export interface IoStreams {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** The terminal's width in columns, when stdout is a terminal that says. */
  stdoutColumns?: number | undefined;
}

/** The formats of lists, gets and reports (--format); --json is the short form of --format json. */
export const OUTPUT_FORMATS = ["table", "tsv", "csv", "json", "ndjson"] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export interface Io extends IoStreams {
  /**
   * Machine output on stdout: --json or --format json|ndjson, or implied by --fields/--jq (commands
   * print their JSON; the Io picks fields, runs jq, or renders the picked fields in the format).
   */
  readonly json: boolean;
  /**
   * The format of this run's output: --format, --json, the name of --out's file, else a table on a
   * terminal and TSV when piped.
   */
  readonly format: OutputFormat;
  /** The format was asked for (--format, --json, --out's name), not chosen by where stdout goes. */
  readonly formatGiven: boolean;
  /** Terminal tables get this many columns (undefined: no limit, as when piped or with --wide). */
  readonly width: number | undefined;
  /** --wide: tables show every column at full width. */
  readonly wide: boolean;
  /** ANSI colors allowed (see colorEnabled). */
  readonly color: boolean;
  /** --quiet: notices and progress are off; errors still print (main.ts writes them). */
  readonly quiet: boolean;
  /** Write data to stdout (as is, unless --fields/--jq shape it). */
  out(text: string): void;
  /**
   * Write text made asynchronously (a module loaded on demand) in its place: output written after
   * it waits for it. finish() waits for every one.
   */
  outLater(text: () => Promise<string>): void;
  /** Write one message line to stderr (nothing with --quiet; a status line on show is cleared first and drawn again after). */
  err(line: string): void;
  /**
   * Shows a live status line (a progress bar) at the bottom of stderr, replacing the one shown; null
   * clears it. Only on a terminal and without --quiet: elsewhere a no-op.
   */
  status(line: string | null): void;
  /** Print a value as JSON on stdout (one document, pretty on a TTY; one line per item with ndjson). */
  outJson(value: unknown): void;
  /**
   * Print one JSON document given as text (the service's own bytes): as is when piped, pretty on a
   * terminal; --jq reads the text unchanged, so numbers keep their digits.
   */
  outJsonText(text: string): void;
  /** The command's output is JSON by nature (`api`): --fields keeps it JSON instead of a table. */
  jsonOutput(): void;
  /**
   * Names --fields accepts beside the JSON's keys: a table's column name → the JSON path it shows
   * ("codeLimit" → "codes.limit"). Given before the JSON is printed.
   */
  fieldAliases(aliases: Readonly<Record<string, string>>): void;
  /**
   * Prints what --fields/--jq still hold, writes --out's file, and reports their failure (a jq error,
   * an unknown field, output that is not JSON, a file that cannot be written). After a failed command
   * (`failed`), incomplete output is dropped (no file is written) and shaping failures are not
   * reported over the command's own error.
   */
  finish(o?: { failed?: boolean }): Promise<void>;
}
