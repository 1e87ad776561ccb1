// The examples in --help run as written against a sandbox: each example line, in the order help
// shows them, through `sh -c` in a scratch directory with the built CLI on PATH and the sandbox's
// URL and key in the environment. Examples that cannot run here are listed with the reason (a
// placeholder id, an input file the reader brings, a prompt, a command that runs until stopped).
import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { examplesOf } from "../../src/cli/define.js";
import { BIN } from "../helpers/cli.js";
import { tempDir, useSandbox } from "../helpers/harness.js";
import { allCommands, program } from "./tree.js";

const s = useSandbox();

/** Why an example is not run here, or undefined when it is. Checked in order. */
const NOT_RUN: [RegExp, string][] = [
  [/\blogin\b|\blogout\b|partner-cli profiles|PARTNER_PROFILE=/, "needs stored profiles of the reader's own"],
  [/roster get 'Maria López/, "a creator id of the reader's own roster (shows that any characters work)"],
  [/…|[0-9a-f]{8}-0000-[0-9a-f]{4}-8000-|\$CURSOR|\$SIG|\$KEY/, "a placeholder id or variable"],
  [/\b(listen|tail)\b|sandbox start/, "runs until stopped"],
  [
    /sandbox (reset|advance|brand-access|offer|supply-alerts|time-zone|fail-next-job)\b|sandbox faults --/,
    "changes the shared sandbox for the other examples",
  ],
  [/sandbox view AB3D-7KQ2/, "a short code of the reader's own links"],
  [/^partner-cli campaigns create$|campaigns end spring-oats$/, "asks at a terminal"],
  [/completion|source </, "writes into the reader's shell setup"],
  [/\bsync\b(?! --out)|\bsync status/, "needs a database"],
  [/crm-export|roster import|--ids|--secret-file|--body|body\.json/, "reads a file the reader brings"],
  [/\/data\//, "writes under /data"],
  [/webhooks (create|update|delete|rotate-secret|test)/, "registers endpoints on the reader's URL"],
  [/--corrections|--format ndjson --corrections/, "needs corrections in the feed"],
];

function notRun(example: string): string | undefined {
  return NOT_RUN.find(([re]) => re.test(example))?.[1];
}

const examples = [...new Set(allCommands(program()).flatMap((c) => examplesOf(c.cmd)))];
// Made first: the campaign the other examples use. Last: what pauses, ends or resets it.
const rank = (e: string) =>
  /campaigns create/.test(e) ? 0 : /campaigns pause/.test(e) ? 2 : /\b(end|reset)\b/.test(e) ? 3 : 1;
const ordered = examples
  .map((e, i) => ({ e, i }))
  .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
  .map((x) => x.e);

describe("help examples run against the sandbox as written", () => {
  test("every example either runs (exit 0) or is listed with its reason", async () => {
    const dir = tempDir("pcli-examples-");
    const bin = join(dir, "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "partner-cli"), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`, {
      mode: 0o755,
    });
    const env = { ...process.env, ...s.env(), PATH: `${bin}:${process.env.PATH}`, NO_COLOR: "1" };
    const failed: string[] = [];
    const ran: string[] = [];
    for (const example of ordered) {
      if (notRun(example)) continue;
      try {
        await promisify(execFile)("sh", ["-c", example], { cwd: dir, env, timeout: 60_000 });
        ran.push(example);
      } catch (err) {
        const e = err as { code?: number; stderr?: string };
        failed.push(
          `${example}\n    exit ${e.code}: ${(e.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}`,
        );
      }
    }
    expect(failed, `examples that fail as written:\n  ${failed.join("\n  ")}`).toEqual([]);
    // The examples with dates and the campaign they create are among those run.
    expect(ran.filter((e) => e.includes('--from "$(partner-cli offers get'))).toHaveLength(2);
    expect(ran.length).toBeGreaterThan(60);
  }, 600_000);
});
