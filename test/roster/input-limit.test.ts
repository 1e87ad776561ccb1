// The size limit of an input read from a pipe, a FIFO or stdin (--max-input-size): an endless
// writer is stopped there with exit 2, nothing sent and no copy left in the temporary folder; an
// input under the limit imports; the size grammar.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { beforeEach, describe, expect, it } from "vitest";
import { formatByteSize, parseByteSize } from "../../src/csv/input.js";
import { BIN } from "../helpers/cli.js";
import { useSandbox } from "../helpers/harness.js";
import { runResult } from "../helpers/result.js";
import { tempDir } from "../helpers/sandbox.js";
import { creatorCount } from "./harness.js";

/** What partner-cli left in a temporary folder: Node's own compile cache is not ours. */
const ours = (dir: string) => readdirSync(dir).filter((name) => name !== "node-compile-cache");

const s = useSandbox({ seed: "empty", resetEach: true });
let dir: string;
beforeEach(() => {
  dir = tempDir("pcli-limit-");
});

/** The built CLI with explicit credentials, a private config dir and its own temporary folder. */
async function cli(argv: string[], tmp: string, input?: string) {
  const r = await execa(process.execPath, [BIN, ...argv], {
    reject: false,
    env: {
      PARTNER_BASE_URL: s.url,
      PARTNER_API_KEY: s.writeKey,
      PARTNER_CLI_CONFIG_DIR: join(dir, "config"),
      TMPDIR: tmp,
      NO_COLOR: "1",
    },
    timeout: 60_000,
    ...(input !== undefined ? { input } : { stdin: "ignore" }),
  });
  return runResult({ exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) });
}

describe("roster import --max-input-size", () => {
  it("a FIFO fed without end: exit 2 at the limit, the limit and the flag named, nothing sent, no copy left", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const fifo = join(dir, "endless.fifo");
    execFileSync("mkfifo", [fifo]);
    // A writer that never stops on its own: a header, then the same valid row for ever.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `const fs = require("fs"); const fd = fs.openSync(process.argv[1], "w");
         fs.writeSync(fd, "externalId,name\\n"); const rows = "e-1,Endless\\n".repeat(4096);
         try { for (;;) fs.writeSync(fd, rows); } catch { process.exit(0); }`,
        fifo,
      ],
      { stdio: "ignore" },
    );
    const exited = new Promise<number | null>((done) => writer.on("exit", (code) => done(code)));
    try {
      const r = await cli(["roster", "import", fifo, "--max-input-size", "1MB", "--json"], tmp);
      expect(r.exitCode).toBe(2);
      expect(r.stdout).toBe("");
      expect(JSON.parse(r.stderr)).toEqual({
        error: {
          code: "usage_error",
          message: `${fifo} is larger than 1 MB, the most read from a pipe or stdin (--max-input-size); it was not read further. Nothing was sent.`,
          details: null,
          hint: "If the input is really that large, raise the limit, e.g. --max-input-size 5MB, or save it to a file and import the file (a file has no limit).",
        },
        exitCode: 2,
      });
      // The reader went away: the endless writer's next write fails and it ends.
      expect(await exited).toBe(0);
    } finally {
      writer.kill();
    }
    expect(await creatorCount(s.sb)).toBe(0);
    expect(ours(tmp)).toEqual([]);
  });

  it("stdin past the limit, as a person reads it (no --json)", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const text = `externalId,name\n${"s-1,Over\n".repeat(2000)}`; // 18,016 bytes
    const r = await cli(["roster", "import", "-", "--max-input-size", "10KiB"], tmp, text);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      "Error: stdin is larger than 10.2 KB, the most read from a pipe or stdin (--max-input-size); it was not read further. Nothing was sent.\n" +
        "If the input is really that large, raise the limit, e.g. --max-input-size 51.2KB, or save it to a file and import the file (a file has no limit).",
    );
    expect(await creatorCount(s.sb)).toBe(0);
    expect(ours(tmp)).toEqual([]);
  });

  it("a pipe under the limit imports; a regular file is not limited", async () => {
    const tmp = mkdtempSync(join(dir, "tmp-"));
    const text = "externalId,name\np-1,Ada\np-2,Bo\n";
    const piped = await cli(["roster", "import", "-", "--max-input-size", `${text.length}`], tmp, text);
    expect(piped.stderr).toBe(
      "Imported stdin: 2 rows in 1 batch: 2 added, 0 updated, 0 unchanged, 0 rejected.",
    );
    expect(piped.exitCode).toBe(0);
    expect(ours(tmp)).toEqual([]);

    const file = join(dir, "r.csv");
    writeFileSync(file, "externalId,name\np-3,Cy\n");
    const fromFile = await cli(["roster", "import", file, "--max-input-size", "1"], tmp);
    expect(fromFile.exitCode).toBe(0);
    expect(await creatorCount(s.sb)).toBe(3);
  });

  it("at a terminal the status line shows the bytes read from the pipe; --quiet and a pipe for stderr show none", async () => {
    const text = "externalId,name\nt-1,Ada\n";
    const tty = await s.run(["roster", "import", "-"], { tty: true, input: text });
    expect(tty.exitCode).toBe(0);
    expect(tty.stderr).toContain("\r\u001b[2KReading stdin: 0.0 MB");
    const quiet = await s.run(["roster", "import", "-", "--quiet"], { tty: true, input: text });
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).not.toContain("Reading stdin");
    const piped = await s.run(["roster", "import", "-"], { input: text });
    expect(piped.stderr).not.toContain("Reading stdin");
  });

  it("--max-input-size that is not a size: exit 2 before anything is read", async () => {
    const r = await s.run(["roster", "import", "-", "--max-input-size", "lots"], {
      input: "externalId\nx\n",
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      'Error: --max-input-size must be a size such as 2GB, 500MB or 4GiB, not "lots".',
    );
    expect(await creatorCount(s.sb)).toBe(0);
  });
});

describe("sizes", () => {
  it("parses units of 1,000 and 1,024, any case; refuses the rest", () => {
    expect(parseByteSize("2GB")).toBe(2_000_000_000);
    expect(parseByteSize("500mb")).toBe(500_000_000);
    expect(parseByteSize("1.5 GB")).toBe(1_500_000_000);
    expect(parseByteSize("4GiB")).toBe(4 * 1024 ** 3);
    expect(parseByteSize("10k")).toBe(10_000);
    expect(parseByteSize("123")).toBe(123);
    for (const bad of ["", "GB", "-1GB", "0", "2 XB", "1e9", "0.1B"])
      expect(parseByteSize(bad), bad).toBeUndefined();
  });

  it("shows a limit in the unit people type", () => {
    expect(formatByteSize(2_000_000_000)).toBe("2 GB");
    expect(formatByteSize(500_000_000)).toBe("500 MB");
    expect(formatByteSize(999)).toBe("999 bytes");
  });
});
