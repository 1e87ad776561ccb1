// Builds src/ into dist/ with esbuild: one entry (main), lazily imported command modules
// split into their own chunks so start-up parses only what a command needs.
import { rmSync } from "node:fs";
import { build } from "esbuild";

rmSync(new URL("../dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { main: "src/main.ts", "sandbox-entry": "src/sandbox/server.ts" },
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  sourcemap: "linked",
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
