// Builds src/ into dist/ with esbuild: one entry (main), lazily imported command modules split into
// their own chunks so start-up parses only what a command needs. Builds into a temporary directory
// and swaps it in, so a process running from dist/ never sees a half-written tree.
import { existsSync, renameSync, rmSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("../", import.meta.url);
const tmp = new URL(`dist.tmp-${process.pid}/`, root);
const old = new URL(`dist.old-${process.pid}/`, root);
const dist = new URL("dist/", root);

await build({
  entryPoints: { main: "src/main.ts" },
  outdir: tmp.pathname,
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
if (existsSync(dist)) renameSync(dist, old);
renameSync(tmp, dist);
rmSync(old, { recursive: true, force: true });
