// End-to-end helper: spawn bin/partner-cli.js (the built dist) with execa and a private config dir.
import { fileURLToPath } from "node:url";
import { execa, type Options } from "execa";
import { type RunResult, runResult } from "./result.js";

export const BIN = fileURLToPath(new URL("../../bin/partner-cli.js", import.meta.url));

export async function cli(
  args: string[],
  o: { env?: NodeJS.ProcessEnv; input?: string; cwd?: string; timeout?: number } = {},
): Promise<RunResult> {
  const opts: Options = {
    reject: false,
    env: { NO_COLOR: "1", PARTNER_RETRY_BASE_MS: "20", ...o.env },
    extendEnv: true,
    timeout: o.timeout ?? 60_000,
    ...(o.input !== undefined ? { input: o.input } : { stdin: "ignore" }),
    ...(o.cwd ? { cwd: o.cwd } : {}),
  };
  const r = await execa("node", [BIN, ...args], opts);
  return runResult({ exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) });
}
