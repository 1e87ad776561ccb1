#!/usr/bin/env node
// Tiny shim: check the Node version, load the built program, hand over the exit code.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`partner-cli needs Node.js 20.19 or newer (this is ${process.versions.node}).\n`);
  process.exit(2);
}
// Built-ins are taken with process.getBuiltinModule (no ESM import: see scripts/build.mjs).
// Node 22.8+ caches compiled code between runs (a no-op before that).
process.getBuiltinModule("node:module").enableCompileCache?.();
// A checkout has no dist/ until it is built (the package is built by `npm pack`; a clone by `npm run build`).
if (!process.getBuiltinModule("node:fs").existsSync(new URL("../dist/main.js", import.meta.url))) {
  const root = process.getBuiltinModule("node:url").fileURLToPath(new URL("..", import.meta.url));
  process.stderr.write(`partner-cli is not built yet: run \`npm run build\` in ${root} first.\n`);
  process.exit(1);
}
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
  // Answered before the command tree is even loaded: the same line commander prints.
  const { VERSION } = await import("../dist/version.js");
  try {
    process.getBuiltinModule("node:fs").writeSync(1, `${VERSION}\n`);
  } catch (err) {
    if (err.code !== "EPIPE") process.stdout.write(`${VERSION}\n`);
  }
} else if (args[0] === "__complete" && (await completeFast(args.slice(1)))) {
  // Answered from the completion model without the program (src/commands/completion/fast.ts).
} else {
  // A closed pipe ends the output quietly: run()'s streams say so (processStreams in src/io/io.ts).
  const { run } = await import("../dist/main.js");
  process.exitCode = await run(args);
}

/** What every TAB runs: true when dist/complete.js answered; false leaves it to the program. */
async function completeFast(rest) {
  const { completeFast } = await import("../dist/complete.js");
  process.stdout.on("error", () => {}); // a closed pipe (the shell stopped reading) ends it quietly
  return completeFast(rest, (text) => process.stdout.write(text));
}
