// Streams and the facts about them that decide how output looks.
import type { Readable, Writable } from "node:stream";

export interface IoStreams {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
}

export interface Io extends IoStreams {
  /** --json was given: machine output on stdout. */
  json: boolean;
  /** ANSI colors allowed (a TTY, no NO_COLOR, no --no-color). */
  color: boolean;
  /** Write data to stdout (as is). */
  out(text: string): void;
  /** Write one message line to stderr (a status line on show is cleared first and drawn again after). */
  err(line: string): void;
  /**
   * Shows a live status line (a progress bar) at the bottom of stderr, replacing the one shown; null
   * clears it. Only on a terminal: elsewhere a no-op.
   */
  status(line: string | null): void;
  /** Print a value as JSON on stdout (one document, pretty on a TTY). */
  outJson(value: unknown): void;
}

export function createIo(
  streams: IoStreams,
  opts: { json: boolean; noColor: boolean; env: NodeJS.ProcessEnv },
): Io {
  const noColorEnv = opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== "";
  const color = streams.stderrIsTTY && streams.stdoutIsTTY && !noColorEnv && !opts.noColor;
  // The status line drawn last, if any: every other stderr line goes above it.
  let status: string | null = null;
  const CLEAR_LINE = "\r\u001b[2K";
  return {
    ...streams,
    json: opts.json,
    color,
    out(text) {
      streams.stdout.write(text);
    },
    err(line) {
      const text = line.endsWith("\n") ? line : `${line}\n`;
      streams.stderr.write(status === null ? text : `${CLEAR_LINE}${text}${status}`);
    },
    status(line) {
      if (!streams.stderrIsTTY) return;
      if (line === null) {
        if (status !== null) streams.stderr.write(CLEAR_LINE);
        status = null;
        return;
      }
      status = line;
      streams.stderr.write(`${CLEAR_LINE}${line}`);
    },
    outJson(value) {
      streams.stdout.write(`${JSON.stringify(value, null, streams.stdoutIsTTY ? 2 : undefined)}\n`);
    },
  };
}

export function processStreams(): IoStreams {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    stdinIsTTY: Boolean(process.stdin.isTTY),
  };
}
