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
  /** Write one message line to stderr. */
  err(line: string): void;
  /** Print a value as JSON on stdout (one document, pretty on a TTY). */
  outJson(value: unknown): void;
}

export function createIo(
  streams: IoStreams,
  opts: { json: boolean; noColor: boolean; env: NodeJS.ProcessEnv },
): Io {
  const noColorEnv = opts.env.NO_COLOR !== undefined && opts.env.NO_COLOR !== "";
  const color = streams.stderrIsTTY && streams.stdoutIsTTY && !noColorEnv && !opts.noColor;
  return {
    ...streams,
    json: opts.json,
    color,
    out(text) {
      streams.stdout.write(text);
    },
    err(line) {
      streams.stderr.write(line.endsWith("\n") ? line : `${line}\n`);
    },
    outJson(value) {
      streams.stdout.write(`${JSON.stringify(value, null, streams.stdoutIsTTY ? 2 : undefined)}\n`);
    },
  };
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
