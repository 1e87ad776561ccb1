// `npm run test:unit`: the fast inner loop. Unit tests and the sandbox's conformance tests, in
// process over real HTTP; no test that spawns the CLI (or anything else: tmux, openssl, daemons)
// and no build of dist/. A file is left out when its text shows it spawns (SPAWNS below), so a new
// end-to-end test never slows the loop down. `npm test` runs the whole suite (vitest.config.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

const root = fileURLToPath(new URL(".", import.meta.url));
/** The parts of the loop: unit tests, the sandbox, and the layers under the commands. */
const DIRS = ["test/unit", "test/sandbox", "test/api", "test/csv", "test/harness"];
/** What a test file that spawns a process (the built CLI, tmux, a tool) contains. */
export const SPAWNS = /helpers\/cli\.js|\.cli\(|\bcli\(|tmux|dist\/|execa|spawn|execFile|fork\(/;
/** In-process, but seconds each on a quiet machine: scale checks, left to `npm test`. */
const SLOW = ["test/sandbox/traffic-bulk.test.ts", "test/sandbox/store-scale.test.ts"];

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [join(dir, e.name)] : [],
  );
}

const exclude = DIRS.flatMap(files)
  .filter((f) => SLOW.includes(f) || SPAWNS.test(readFileSync(join(root, f), "utf8")))
  .map((f) => relative(root, join(root, f)).split("\\").join("/"));

export default defineConfig({
  test: { ...base.test, include: DIRS.map((d) => `${d}/**/*.test.ts`), exclude, globalSetup: [] },
});
