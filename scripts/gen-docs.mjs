// Writes docs/commands/ (Markdown, src/cli/docs.ts), man/ (man pages, src/cli/man.ts) and the
// completion model that bin/ answers `__complete` from (src/commands/completion/model.json, read by
// fast.ts there) from the command-tree model. It bundles src/program.ts and the renderers with esbuild into a temporary
// module first, so it depends on the sources, not on dist/ chunk names. Stale files (commands that
// no longer exist) are removed. Both are committed and shipped (package.json "files" and "man");
// test/cli/docs-drift.test.ts fails when they differ from what this would write.
//   node scripts/gen-docs.mjs           write docs/commands/ and man/
//   node scripts/gen-docs.mjs --check   exit 1 if either differs (writes nothing)
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const check = process.argv.includes("--check");

// Inside the repository (node_modules/.cache), so the bundle's bare imports resolve to node_modules.
const tmpDir = new URL(`../node_modules/.cache/partner-cli-docs-${process.pid}/`, import.meta.url);
mkdirSync(tmpDir, { recursive: true });
const bundle = new URL("docs.mjs", tmpDir);
let outputs;
try {
  await build({
    stdin: {
      contents: [
        'export { buildProgram } from "./src/program.ts";',
        'export { renderCommandDocs } from "./src/cli/docs.ts";',
        'export { renderManPages } from "./src/cli/man.ts";',
        'export { programTree } from "./src/cli/tree.ts";',
        'export { completionModel } from "./src/commands/completion/tree.ts";',
      ].join("\n"),
      resolveDir: root,
      loader: "ts",
    },
    outfile: fileURLToPath(bundle),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    // The lazily imported run modules (src/commands/**, imported by the actions) are never loaded
    // to render docs: leave them out, so the docs build is quick and works while a command is
    // half-written. The command-tree model (a static import) is bundled.
    plugins: [
      {
        name: "skip-run-modules",
        setup(b) {
          b.onResolve({ filter: /^\.\.\/commands\// }, (args) =>
            args.kind === "dynamic-import" ? { path: args.path, external: true } : undefined,
          );
        },
      },
    ],
    logLevel: "warning",
  });
  const { buildProgram, renderCommandDocs, renderManPages, programTree, completionModel } = await import(
    pathToFileURL(fileURLToPath(bundle)).href
  );
  const program = buildProgram({
    makeContext: () => {
      throw new Error("gen-docs never runs a command");
    },
    streams: { stdout: process.stdout, stderr: process.stderr },
  });
  const tree = programTree(program);
  outputs = [
    { dir: "docs/commands", ext: ".md", files: renderCommandDocs(tree) },
    { dir: "man", ext: ".1", files: renderManPages(tree) },
    {
      dir: "src/commands/completion",
      ext: ".json",
      files: new Map([["model.json", `${JSON.stringify(completionModel(tree), null, 2)}\n`]]),
    },
  ];
} finally {
  rmSync(tmpDir, { recursive: true, force: true });
}

const stale = [];
for (const { dir, ext, files } of outputs) {
  const outDir = new URL(`../${dir}/`, import.meta.url);
  mkdirSync(outDir, { recursive: true });
  const existing = readdirSync(outDir).filter((f) => f.endsWith(ext));
  const changed = [];
  for (const [name, text] of files) {
    const target = new URL(name, outDir);
    let old;
    try {
      old = readFileSync(target, "utf8");
    } catch {
      old = undefined;
    }
    if (old === text) continue;
    changed.push(name);
    if (!check) writeFileSync(target, text);
  }
  for (const name of existing) {
    if (files.has(name)) continue;
    changed.push(`${name} (removed)`);
    if (!check) rmSync(new URL(name, outDir));
  }
  if (check && changed.length) stale.push(`${dir} (${changed.join(", ")})`);
  else if (!check)
    console.error(
      changed.length
        ? `${dir}: wrote ${changed.join(", ")} (${files.size} files in all).`
        : `${dir}: ${files.size} files, all up to date.`,
    );
}
if (check) {
  if (stale.length) {
    console.error(`Out of date: ${stale.join("; ")}. Run "npm run docs".`);
    process.exit(1);
  }
  console.error("docs/commands, man/ and the completion model are up to date.");
}
