// Shared helpers for the roster command tests: temp files, creator reads, the files of
// scripts/make-fixtures.mjs, and an empty sandbox with the import run in-process (runFn in
// test/helpers/fixtures.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { beforeEach } from "vitest";
import { type ImportOptions, rosterImportRun } from "../../src/commands/roster/import.js";
import { type FnResult, runFn } from "../helpers/fixtures.js";
import { useSandbox } from "../helpers/harness.js";
import { http, type RunningSandbox, tempDir } from "../helpers/sandbox.js";

const SCRIPT = new URL("../../scripts/make-fixtures.mjs", import.meta.url);
/** scripts/make-fixtures.mjs itself: fixtures(), bigMisplacedQuote(), FIXTURES_DIR. */
export const fixtureScript = await import(pathToFileURL(SCRIPT.pathname).href);
/** A committed file of the corpus (test/fixtures/files/NAME), exactly as the script makes it. */
export const fixtureFile = (name: string): string => join(fixtureScript.FIXTURES_DIR as string, name);

/**
 * A sandbox seeded empty and reset to empty before each test, and `imp`: `roster import` run
 * in-process against it (--json unless told otherwise).
 */
export function useEmptyRoster() {
  const s = useSandbox({ seed: "empty" });
  beforeEach(async () => {
    await s.http("POST", "/reset", { control: true, body: { seed: "empty" } });
  });
  const imp = (path: string, opts: ImportOptions = {}, json = true) =>
    runFn(s.sb, (ctx) => rosterImportRun({ file: path, ...opts }, ctx), { globals: { json } });
  return { s, imp };
}

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
