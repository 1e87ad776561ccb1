// Shared helpers for the roster command tests: temp files and creator reads (runs: runFn in
// test/helpers/fixtures.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FnResult } from "../helpers/fixtures.js";
import { http, type RunningSandbox, tempDir } from "../helpers/sandbox.js";

export function writeTemp(content: string | Buffer, name = "roster.csv"): string {
  const path = join(tempDir("pcli-roster-"), name);
  writeFileSync(path, content);
  return path;
}

export async function creatorCount(sb: RunningSandbox): Promise<number> {
  const r = await http(sb, "GET", "/creators?pageSize=1");
  return r.body.totalCount as number;
}

export async function creator(sb: RunningSandbox, id: string) {
  const r = await http(sb, "GET", `/creators/${encodeURIComponent(id)}`);
  return r.status === 200 ? r.body : undefined;
}

/** The message of what the run threw ("" when it returned). */
export const errorText = (r: FnResult) => (r.thrown instanceof Error ? r.thrown.message : "");
