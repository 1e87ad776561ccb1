// roster import run as the built CLI: stdin and pipes ("-", /dev/stdin, a named FIFO, bash's <(...)),
// the private copy they need and its removal, big files without Node warnings, blank lines.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeEach, describe, expect, it } from "vitest";
import { makeSpool } from "../../src/csv/input.js";
import { BIN } from "../helpers/cli.js";
import { tempDir } from "../helpers/sandbox.js";
import { creator, creatorCount } from "./harness.js";
import { useSandbox } from "../helpers/harness.js";
import { runResult } from "../helpers/result.js";

/** What partner-cli left in a temporary folder: Node's own compile cache (Node 22+, bin/ enables it) is not ours. */
function ours(dir: string): string[] {
  return readdirSync(dir).filter((name) => name !== "node-compile-cache");
}

const s = useSandbox({ seed: "empty" });
let dir: string;
beforeEach(async () => {
  await s.http("POST", "/reset", { control: true, body: { seed: "empty" } });
  dir = tempDir("pcli-pipes-");
});

/** Environment of a scripted run: explicit credentials, a private config dir and temp dir. */
function env(tmp: string): NodeJS.ProcessEnv {
  return {
    PARTNER_BASE_URL: s.url,
    PARTNER_API_KEY: s.writeKey,
    PARTNER_CLI_CONFIG_DIR: join(dir, "config"),
    TMPDIR: tmp,
    NO_COLOR: "1",
    PARTNER_RETRY_BASE_MS: "20",
  };
}

/** Runs a bash script with $BIN, $NODE and the given positional arguments (outputs without their final newline). */
async function bash(script: string, args: string[], tmp: string, input?: string) {
  const r = await execa("bash", ["-c", script, "bash", ...args], {
    reject: false,
    env: { ...env(tmp), BIN, NODE: process.execPath },
    extendEnv: true,
    timeout: 60_000,
    ...(input !== undefined ? { input } : { stdin: "ignore" }),
  });
  return runResult({ exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) });
}

const ROSTER = "externalId,name\r\np-1,Zoë\r\np-2,Bob\r\n";

describe("roster import from stdin and pipes", () => {
  it('"-" reads stdin; the private copy leaves nothing in the temporary folder', async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const r = await bash('"$NODE" "$BIN" roster import - --json', [], tmp, ROSTER);
    expect(r.stderr).toBe("Imported stdin: 2 rows in 1 batch: 2 added, 0 updated, 0 unchanged, 0 rejected.");
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ rows: 2, added: 2 });
    expect((await creator(s.sb, "p-1")).name).toBe("Zoë");
    expect(ours(tmp)).toEqual([]);
  });

  it("/dev/stdin, from a pipe", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const file = join(dir, "r.csv");
    writeFileSync(file, ROSTER);
    const r = await bash('cat "$1" | "$NODE" "$BIN" roster import /dev/stdin', [file], tmp);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/Imported \/dev\/stdin: 2 rows in 1 batch: 2 added/);
    expect(await creatorCount(s.sb)).toBe(2);
  });

  it("a named FIFO (mkfifo): read once, never reopened", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const file = join(dir, "r.csv");
    writeFileSync(file, ROSTER);
    const fifo = join(dir, "roster.fifo");
    execFileSync("mkfifo", [fifo]);
    const r = await bash(
      'cat "$1" > "$2" & "$NODE" "$BIN" roster import "$2"; s=$?; wait; exit $s',
      [file, fifo],
      tmp,
    );
    expect(r.stderr).toMatch(/Imported .*roster\.fifo: 2 rows in 1 batch: 2 added/);
    expect(r.exitCode).toBe(0);
    expect(ours(tmp)).toEqual([]);
  });

  it("bash's <(...)", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const file = join(dir, "r.csv");
    writeFileSync(file, ROSTER);
    const r = await bash('"$NODE" "$BIN" roster import <(cat "$1")', [file], tmp);
    expect(r.stderr).toMatch(/Imported \/dev\/fd\/\d+: 2 rows in 1 batch: 2 added/);
    expect(r.exitCode).toBe(0);
  });

  it("a broken file on stdin still sends nothing (the checking pass reads it all first)", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const text = `externalId,name\n${Array.from({ length: 3000 }, (_, i) => `b-${i},N ${i}`).join("\n")}\nb-x,"open\n`;
    const r = await bash('"$NODE" "$BIN" roster import -', [], tmp, text);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^Error: stdin: line 3002, field 2 \(name\): a quoted field opens here and is never closed\. Nothing was sent\./,
    );
    expect(await creatorCount(s.sb)).toBe(0);
    expect(ours(tmp)).toEqual([]);
  });

  it("the private copy is mode 0600 and has no name left in the temporary folder", async () => {
    const { fh, cleanup } = await makeSpool();
    try {
      const st = await fh.stat();
      expect(st.mode & 0o777).toBe(0o600);
      expect(st.nlink).toBe(0); // unlinked at once: only the open descriptor reaches it
    } finally {
      await fh.close();
      await cleanup();
    }
  });
});

describe("roster import of big files", () => {
  it("20,000 rows: no Node warning on stderr, only the summary", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const file = join(dir, "20k.csv");
    const rows = Array.from(
      { length: 20_000 },
      (_, i) => `w-${i},Creator ${i} Müller,c${i}@example.com,@c${i},${i % 3 ? "yes" : "no"}`,
    );
    writeFileSync(file, `externalId,name,email,handle,active\n${rows.join("\n")}\n`);
    const r = await bash('"$NODE" "$BIN" roster import "$1"', [file], tmp);
    expect(r.stderr).not.toMatch(/Warning|MaxListeners|\(node:\d+\)/);
    expect(r.stderr).toBe(
      `Imported ${file}: 20,000 rows in 20 batches: 20,000 added, 0 updated, 0 unchanged, 0 rejected.`,
    );
    expect(r.exitCode).toBe(0);
    expect(await creatorCount(s.sb)).toBe(20_000);
  }, 120_000);

  it("a file of 1,000,000 blank lines after the header finishes with no rows", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const file = join(dir, "blank.csv");
    writeFileSync(file, `externalId,name\n${"\n".repeat(1_000_000)}`);
    const r = await bash('"$NODE" "$BIN" roster import "$1" --json', [file], tmp);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).summary).toEqual({
      rows: 0,
      added: 0,
      updated: 0,
      unchanged: 0,
      rejected: 0,
    });
    expect(r.stderr).toBe(`${file} has a header but no rows; nothing to import.`);
  }, 120_000);
});
