// For --dry-run tests: the requests a run sent (from its --verbose trace, written by the API client
// for every request it sends) and the bytes of every file under a directory.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";

/** "METHOD /path?query" of each request in a --verbose trace, in order. */
export function requestsSent(stderr: string): string[] {
  return [...stderr.matchAll(/^> ([A-Z]+) https?:\/\/[^/\s]+(\S*)/gm)].map((m) => `${m[1]} ${m[2]}`);
}

/** The run sent requests, and every one of them was a GET. */
export function expectOnlyReads(stderr: string): string[] {
  const sent = requestsSent(stderr);
  expect(sent.length, stderr).toBeGreaterThan(0);
  expect(sent.filter((r) => !r.startsWith("GET "))).toEqual([]);
  return sent;
}

/** Every file under `dir` (relative name → its bytes as base64): equal before and after = untouched. */
export function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p, `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = readFileSync(p).toString("base64");
    }
  };
  walk(dir, "");
  return out;
}
