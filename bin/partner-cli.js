#!/usr/bin/env node
// Tiny shim: check the Node version, load the built program, hand over the exit code.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`partner-cli needs Node.js 20.19 or newer (this is ${process.versions.node}).\n`);
  process.exit(2);
}
const { enableCompileCache } = await import("node:module");
enableCompileCache?.();
// A closed pipe (`partner-cli ... | head`) ends the output quietly, as other CLIs do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { run } = await import("../dist/main.js");
process.exitCode = await run(process.argv.slice(2));
