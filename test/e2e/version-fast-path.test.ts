// bin/partner-cli.js answers `--version` and `-V` (alone) from dist/version.js, without the program.
// The reference is the program itself (dist/main.js's run(), commander's .version()): the two must
// print the same bytes with the same exit code.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";

const MAIN = join(fileURLToPath(new URL("../../", import.meta.url)), "dist", "main.js");
const tmp = mkdtempSync(join(tmpdir(), "partner-cli-version-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const PROGRAM = join(tmp, "program.mjs");
writeFileSync(
  PROGRAM,
  `const { run } = await import(${JSON.stringify(pathToFileURL(MAIN).href)});\nprocess.exitCode = await run(process.argv.slice(2));\n`,
);

describe.skipIf(!existsSync(MAIN))("--version's fast path", () => {
  it.each([["--version"], ["-V"]])("%s: bin/'s answer is the program's, byte for byte", (flag) => {
    const spawn = (script: string) => {
      const r = spawnSync(process.execPath, [script, flag], { encoding: "utf8" });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const fast = spawn(BIN);
    expect(fast.status).toBe(0);
    expect(fast.stdout).toMatch(/^\d+\.\d+\.\d+\S*\n$/);
    expect(fast).toEqual(spawn(PROGRAM));
  });
});
