// In-process runs of the whole program (parse → action → exit code) with captured streams.
import type { Prompter } from "../../src/io/prompter.js";
import { run } from "../../src/main.js";

import { type RunResult, runResult } from "./result.js";
import { captureStreams } from "./sandbox.js";

export async function runIn(
  args: string[],
  o: {
    env?: NodeJS.ProcessEnv;
    stdin?: string;
    tty?: boolean;
    prompter?: Prompter;
  } = {},
): Promise<RunResult> {
  const { out, err, stdin, stdout, stderr } = captureStreams(o.stdin);
  if (o.stdin === undefined && !o.tty) stdin.end();
  const tty = o.tty ?? false;
  const exitCode = await run(args, {
    streams: { stdout: out, stderr: err, stdin, stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: tty },
    env: { NO_COLOR: "1", PARTNER_RETRY_BASE_MS: "20", ...o.env },
    prompter: o.prompter,
    signal: new AbortController().signal,
  });
  return runResult({ exitCode, stdout: stdout(), stderr: stderr() });
}
