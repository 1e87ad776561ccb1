#!/usr/bin/env node
// Tiny shim: check the Node version, load the built program, hand over the exit code.
const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`partner-cli needs Node.js 20.19 or newer (this is ${process.versions.node}).\n`);
  process.exit(2);
}
const { enableCompileCache } = await import("node:module");
enableCompileCache?.();
const { run } = await import("../dist/main.js");
process.exitCode = await run(process.argv.slice(2));
