// Shared bits of the sandbox core conformance tests: strict parsing of every response and the
// error-body check.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import type { z } from "zod";
import { DB_FILE, SandboxStore } from "../../src/sandbox/store.js";
import { ErrorBody } from "../../src/spec/kit.js";

/** The spec's error body, strictly: {error:{code,message,details?}} and nothing else. */
export function expectError(
  res: { status: number; body: unknown },
  status: number,
  code: string,
  detailKeys?: string[],
): Record<string, string[]> | undefined {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const parsed = ErrorBody.parse(res.body);
  expect(Object.keys(res.body as object)).toEqual(["error"]);
  for (const k of Object.keys(parsed.error)) expect(["code", "message", "details"]).toContain(k);
  expect(parsed.error.code).toBe(code);
  expect(parsed.error.message.length).toBeGreaterThan(0);
  if (detailKeys) expect(Object.keys(parsed.error.details ?? {}).sort()).toEqual([...detailKeys].sort());
  return parsed.error.details;
}

/** Parses a sandbox response body with a strict schema (drift fails the test). */
export function strict<T>(schema: z.ZodType<T>, res: { status: number; body: unknown }, status = 200): T {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  const r = schema.safeParse(res.body);
  if (!r.success) throw new Error(`strict parse failed: ${r.error.message}\n${JSON.stringify(res.body)}`);
  return r.data;
}

/** Opens a stopped sandbox's data dir (its SQLite store) for `fn`, then closes it. */
export async function readStore<T>(dir: string, fn: (s: SandboxStore) => T): Promise<T> {
  const s = await SandboxStore.open(dir);
  try {
    return fn(s);
  } finally {
    s.close();
  }
}

/** The database file of a data dir. */
export const dbFile = (dir: string) => join(dir, DB_FILE);

/** Bytes and modification time of every file of a data dir (a read must leave them as they were). */
export function dirFingerprint(dir: string): string {
  return readdirSync(dir)
    .sort()
    .map((f) => {
      const st = statSync(join(dir, f));
      return `${f}:${st.size}:${st.mtimeMs}`;
    })
    .join("\n");
}
