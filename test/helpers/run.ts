// In-process runs of the whole program (parse → action → exit code) with captured streams.
import { PassThrough } from "node:stream";
import type { Prompter } from "../../src/io/prompter.js";
import { run } from "../../src/main.js";

import { type RunResult, runResult } from "./result.js";

export async function runIn(
  args: string[],
  o: {
    env?: NodeJS.ProcessEnv;
    stdin?: string;
    tty?: boolean;
    prompter?: Prompter;
  } = {},
): Promise<RunResult> {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = "";
  let stderr = "";
  out.on("data", (c) => {
    stdout += c;
  });
  err.on("data", (c) => {
    stderr += c;
  });
  const stdin = new PassThrough();
  if (o.stdin !== undefined) stdin.end(o.stdin);
  else if (!o.tty) stdin.end();
  const tty = o.tty ?? false;
  const exitCode = await run(args, {
    streams: { stdout: out, stderr: err, stdin, stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: tty },
    env: { NO_COLOR: "1", PARTNER_RETRY_BASE_MS: "20", ...o.env },
    prompter: o.prompter,
    signal: new AbortController().signal,
  });
  return runResult({ exitCode, stdout, stderr });
}
