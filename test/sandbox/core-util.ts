// Shared bits of the sandbox core conformance tests: strict parsing of every response and the
// error-body check.
import { expect } from "vitest";
import type { z } from "zod";
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
