// The examples in --help run as written against a sandbox, in the order help shows them, in a
// scratch directory with the sandbox's URL and key in the environment. A plain command line (words
// and quotes only) runs in-process through main's run(); a line that needs a shell (a pipe, $(...),
// a redirection, a variable) runs through `sh -c` with the built CLI on PATH. Examples that cannot
// run here are listed with the reason (a placeholder id, an input file the reader brings, a prompt,
// a command that runs until stopped).
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
  [/\b(listen|tail|forward)\b|sandbox start/, "runs until stopped"],
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
  [/webhooks (create|update|delete|rotate-secret|test|trigger)/, "registers endpoints on the reader's URL"],
  [/--corrections|--format ndjson --corrections/, "needs corrections in the feed"],
];

function notRun(example: string): string | undefined {
  return NOT_RUN.find(([re]) => re.test(example))?.[1];
}

/**
 * The argv of a plain `partner-cli ...` line (words, 'single' or "double" quotes without anything a
 * shell would expand), or undefined when the line needs a shell.
 */
function plainArgv(example: string): string[] | undefined {
  if (/[|&;<>$`(){}\\*?~#!=[\]]|\n/.test(example.replace(/'[^']*'/g, "''"))) return undefined;
  const words = [...example.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)];
  if (words.some((m) => m[3] !== undefined && /['"]/.test(m[3]))) return undefined; // quotes inside a word
  const argv = words.map((m) => m[1] ?? m[2] ?? m[3] ?? "");
  return argv[0] === "partner-cli" ? argv.slice(1) : undefined;
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
    // One config dir for both ways, as one reader's shell would have.
    const configDir = tempDir("pcli-examples-config-");
    const env = {
      ...process.env,
      ...s.env({}, { configDir }),
      PATH: `${bin}:${process.env.PATH}`,
      NO_COLOR: "1",
    };
    const failed: string[] = [];
    const ran: string[] = [];
    const spawned: string[] = [];
    const home = process.cwd();
    process.chdir(dir); // relative paths (--out file.csv) land in the scratch directory
    try {
      for (const example of ordered) {
        if (notRun(example)) continue;
        const argv = plainArgv(example);
        const why = argv ? await inProcess(argv, configDir) : await inShell(example, dir, env);
        if (!argv) spawned.push(example);
        if (why === undefined) ran.push(example);
        else failed.push(`${example}\n    ${why}`);
      }
    } finally {
      process.chdir(home);
    }
    expect(failed, `examples that fail as written:\n  ${failed.join("\n  ")}`).toEqual([]);
    // The examples with dates and the campaign they create are among those run.
    expect(ran.filter((e) => e.includes('--from "$(partner-cli offers get'))).toHaveLength(2);
    expect(ran.length).toBeGreaterThan(60);
    // Most run in-process; the shell ones (pipes, $(...)) still spawn the built CLI.
    expect(spawned.length).toBeGreaterThanOrEqual(3);
    expect(spawned.length).toBeLessThan(ran.length / 2);
  }, 600_000);
});

/** Runs a plain example in-process; undefined when it exits 0, else what went wrong. */
async function inProcess(argv: string[], configDir: string): Promise<string | undefined> {
  const r = await s.run(argv, { configDir });
  return r.exitCode === 0 ? undefined : `exit ${r.exitCode} (in-process): ${lastLines(r.stderr)}`;
}

/** Runs an example through `sh -c` with the built CLI on PATH. */
async function inShell(example: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    await promisify(execFile)("sh", ["-c", example], { cwd, env, timeout: 60_000 });
    return undefined;
  } catch (err) {
    const e = err as { code?: number; stderr?: string };
    return `exit ${e.code}: ${lastLines(e.stderr ?? "")}`;
  }
}

const lastLines = (text: string) => text.trim().split("\n").slice(-3).join(" | ");

describe("plainArgv", () => {
  test("splits words and quotes; a line a shell would expand is left to the shell", () => {
    expect(plainArgv(`partner-cli roster get 'Maria López' --json`)).toEqual([
      "roster",
      "get",
      "Maria López",
      "--json",
    ]);
    expect(plainArgv(`partner-cli offers list --fields "baseGs1,state"`)).toEqual([
      "offers",
      "list",
      "--fields",
      "baseGs1,state",
    ]);
    for (const line of [
      "partner-cli offers list | head",
      'partner-cli reports summary --from "$(partner-cli offers get x)"',
      "partner-cli export --out ~/r.csv",
      "PARTNER_PROFILE=x partner-cli me",
      "partner-cli offers list > out.txt",
      "cat x | partner-cli roster import -",
    ])
      expect(plainArgv(line), line).toBeUndefined();
  });
});
