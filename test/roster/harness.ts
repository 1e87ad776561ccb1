// Shared helpers for the roster command tests: run a command function against a sandbox with a
// captured test context and report the exit code main.ts would give.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { exitCodeFor } from "../../src/main.js";
import { http, type RunningSandbox, tempDir, testContext } from "../helpers/sandbox.js";

export interface RunResult {
  code: number;
  error: unknown;
  stdout: string;
  stderr: string;
  json: any;
}

export function writeTemp(content: string | Buffer, name = "roster.csv"): string {
  const path = join(tempDir("pcli-roster-"), name);
  writeFileSync(path, content);
  return path;
}

export async function runWith(
  sb: RunningSandbox | null,
  fn: (ctx: ReturnType<typeof testContext>["ctx"]) => Promise<void>,
  o: {
    json?: boolean;
    tty?: boolean;
    setup?: (ctx: ReturnType<typeof testContext>["ctx"]) => Promise<void>;
  } = {},
): Promise<RunResult> {
  const t = testContext(sb, { globals: { json: o.json ?? false }, tty: o.tty ?? false });
  let code = 0;
  let error: unknown;
  try {
    await o.setup?.(t.ctx);
    await fn(t.ctx);
  } catch (err) {
    error = err;
    code = exitCodeFor(err);
  } finally {
    await t.ctx.close();
  }
  const stdout = t.stdout();
  let json: unknown;
  if (o.json && stdout.trim()) json = JSON.parse(stdout);
  return { code, error, stdout, stderr: t.stderr(), json };
}

export async function creatorCount(sb: RunningSandbox): Promise<number> {
  const r = await http(sb, "GET", "/creators?pageSize=1");
  return r.body.totalCount as number;
}

export async function creator(sb: RunningSandbox, id: string) {
  const r = await http(sb, "GET", `/creators/${encodeURIComponent(id)}`);
  return r.status === 200 ? r.body : undefined;
}

export const errorText = (r: RunResult) => (r.error instanceof Error ? r.error.message : "");
