// The top-level help without the program: bin/partner-cli.js answers `partner-cli --help`, `-h` and
// `help` (no other argument) with this module alone, as it answers --version with dist/version.js.
// scripts/build.mjs bundles it with the page it reads from the built program (topHelpPage in
// program.ts: the same tree), and renderHelp is the layout the program's own help uses, so the bytes
// are the program's at every width (test/cli/help-top.test.ts compares them). Loads no commander.
import { fstatSync, writeSync } from "node:fs";
import { type HelpPage, helpWidth, renderHelp } from "./help-layout.js";

/**
 * stdout as helpWidth reads it, asked only when COLUMNS does not give the width. A pipe or a file
 * is told apart by fstat (only a character device can be a terminal) without loading node:tty, and
 * process.stdout (costly to make) is made only for a terminal, for its columns.
 */
const stdout = {
  get isTTY(): boolean {
    try {
      if (!fstatSync(1).isCharacterDevice()) return false;
    } catch {
      return false;
    }
    return process.getBuiltinModule("node:tty").isatty(1);
  },
  get columns(): number | undefined {
    return process.stdout.columns;
  },
};

/** The page for this process: the width from COLUMNS, else the terminal's, else 80 (as the program). */
export function topHelpText(page: HelpPage, env: NodeJS.ProcessEnv = process.env): string {
  return renderHelp(page, helpWidth(env, stdout));
}

/** Writes the page on stdout; a closed pipe (`| head`) ends it quietly, as the program's output. */
export function writeTopHelp(page: HelpPage): void {
  const bytes = Buffer.from(topHelpText(page));
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EPIPE") return;
    // A non-blocking pipe that is full (EAGAIN): the rest goes through the stream, which waits.
    process.stdout.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code !== "EPIPE") throw e;
    });
    process.stdout.write(bytes.subarray(done));
  }
}
