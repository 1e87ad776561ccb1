// Writes docs/commands/ from the commander tree (src/cli/docs.ts renderCommandDocs). It bundles
// src/program.ts + src/cli/docs.ts with esbuild into a temporary module first, so it depends on
// the sources, not on dist/ chunk names. Stale pages (commands that no longer exist) are removed.
//   node scripts/gen-docs.mjs           write docs/commands/
//   node scripts/gen-docs.mjs --check   exit 1 if docs/commands/ differs (writes nothing)
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../", import.meta.url));
const outDir = new URL("../docs/commands/", import.meta.url);
const check = process.argv.includes("--check");

// Inside the repository (node_modules/.cache), so the bundle's bare imports resolve to node_modules.
const tmpDir = new URL(`../node_modules/.cache/partner-cli-docs-${process.pid}/`, import.meta.url);
mkdirSync(tmpDir, { recursive: true });
const bundle = new URL("docs.mjs", tmpDir);
let files;
try {
  await build({
    stdin: {
      contents:
        'export { buildProgram } from "./src/program.ts";\nexport { renderCommandDocs } from "./src/cli/docs.ts";\n',
      resolveDir: root,
      loader: "ts",
    },
    outfile: fileURLToPath(bundle),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    // The lazily imported run modules (src/commands/**) are never loaded to render docs: leave
    // them out, so the docs build is quick and works while a command is half-written. (Static
    // imports from there, such as commands/shared/, are the declarations' own and are bundled.)
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
  const { buildProgram, renderCommandDocs } = await import(pathToFileURL(fileURLToPath(bundle)).href);
  const program = buildProgram({
    makeContext: () => {
      throw new Error("gen-docs never runs a command");
    },
    streams: { stdout: process.stdout, stderr: process.stderr },
  });
  files = renderCommandDocs(program);
} finally {
  rmSync(tmpDir, { recursive: true, force: true });
}

mkdirSync(outDir, { recursive: true });
const existing = readdirSync(outDir).filter((f) => f.endsWith(".md"));
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
if (check) {
  if (changed.length) {
    console.error(`docs/commands is out of date (${changed.join(", ")}). Run "npm run docs".`);
    process.exit(1);
  }
  console.error("docs/commands is up to date.");
} else {
  console.error(
    changed.length
      ? `docs/commands: wrote ${changed.join(", ")} (${files.size} pages in all).`
      : `docs/commands: ${files.size} pages, all up to date.`,
  );
}
