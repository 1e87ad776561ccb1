// Builds src/ into dist/ with esbuild. Start-up cost is what this is about (docs/benchmarks.md):
//
// - The dependencies are bundled into the chunks, so nothing is resolved from node_modules file by
//   file at run time. Only the packages in EXTERNAL stay outside: native or optional ones (database
//   drivers, xlsx), which the commands that use them import lazily.
// - Entry points: `main` (the program) and `version` (bin/ answers --version with it alone).
//   Lazily imported command modules are split into their own chunks, so start-up parses only what
//   a command needs.
// - commander's `require("node:child_process")` (for executable subcommands, which we do not use)
//   is deferred to first use: loading child_process costs a few milliseconds of every start.
//
// Builds into a temporary directory and swaps it in, so a process running from dist/ never sees a
// half-written tree.
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname } from "node:path";
import { build } from "esbuild";

/** Packages never bundled: native bindings or optional, heavy pieces loaded by one command. */
export const EXTERNAL = ["libsql", "@libsql/*", "pg", "pg-native", "pg-cloudflare", "exceljs"];

const root = new URL("../", import.meta.url);
const tmp = new URL(`dist.tmp-${process.pid}/`, root);
const old = new URL(`dist.old-${process.pid}/`, root);
const dist = new URL("dist/", root);

/** commander's child_process, required only when something actually spawns. */
const lazyChildProcess = {
  name: "lazy-child-process",
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer)
        ? { path: "lazy-child-process", namespace: "lazy" }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "lazy" }, () => ({
      contents:
        'let cp; const load = () => (cp ??= require("node:child_process"));\n' +
        "module.exports = { spawn: (...a) => load().spawn(...a), get ChildProcess() { return load().ChildProcess; } };\n",
      loader: "js",
    }));
  },
};

/**
 * Node's built-in modules, taken with process.getBuiltinModule (Node 20.16+) instead of an ESM
 * `import`: an ESM import of a built-in builds a module namespace of every export (for node:fs that
 * loads its stream classes), and each chunk that imports one pays module-linking work at start-up.
 * As a CommonJS module here, esbuild reads each export where it is used. Each importing file gets
 * its own copy (a few bytes), so the copies land in their importers' chunks instead of adding small
 * shared chunks that start-up would have to load.
 */
const builtins = {
  name: "builtins-by-getBuiltinModule",
  setup(b) {
    const names = new Set(builtinModules);
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      const bare = args.path.replace(/^node:/, "");
      if (!args.path.startsWith("node:") && !names.has(bare)) return undefined;
      // `await import("node:x")` keeps Node's own namespace (named exports included).
      if (args.kind === "dynamic-import") return { path: `node:${bare}`, external: true };
      return {
        path: `node:${bare}`,
        namespace: "builtin",
        pluginData: args.importer,
        suffix: `?${args.importer}`,
      };
    });
    b.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});\n`,
      loader: "js",
    }));
  },
};

/**
 * `await import("pkg")` of a bundled CommonJS package: esbuild's chunk for it exports only `default`
 * (Node itself also offers the named exports it detects). So the import goes through a small ESM
 * module that re-exports the package's own keys by name, read from the package at build time.
 */
const namedExportsOfCjs = {
  name: "named-exports-of-dynamically-imported-cjs",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== "dynamic-import" || args.pluginData === "inner") return undefined;
      if (args.path.startsWith("node:") || isExternal(args.path)) return undefined;
      const r = await b.resolve(args.path, {
        kind: "import-statement",
        resolveDir: args.resolveDir,
        pluginData: "inner",
      });
      if (r.errors.length > 0 || !/\.c?js$/.test(r.path)) return undefined;
      const mod = createRequire(r.path)(r.path);
      if (isEsmFile(r.path) || mod?.__esModule) return undefined;
      return { path: r.path, namespace: "cjs-named", pluginData: Object.keys(mod) };
    });
    b.onLoad({ filter: /.*/, namespace: "cjs-named" }, (args) => {
      const names = args.pluginData.filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== "default");
      return {
        contents: `import m from ${JSON.stringify(args.path)};\nexport default m;\nexport const { ${names.join(", ")} } = m;\n`,
        resolveDir: dirname(args.path),
        loader: "js",
      };
    });
  },
};

function isExternal(spec) {
  return EXTERNAL.some((e) =>
    e.endsWith("/*") ? spec.startsWith(e.slice(0, -1)) : spec === e || spec.startsWith(`${e}/`),
  );
}

/** ESM by extension, or by the "type" of the nearest package.json. */
function isEsmFile(file) {
  if (file.endsWith(".mjs")) return true;
  if (file.endsWith(".cjs")) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(`${dir}/package.json`))
      return JSON.parse(readFileSync(`${dir}/package.json`, "utf8")).type === "module";
  }
  return false;
}

await build({
  entryPoints: { main: "src/main.ts", version: "src/version.ts" },
  outdir: tmp.pathname,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  // Bundled CommonJS packages require Node's built-in modules, and ESM output has no `require`: each
  // chunk gets one that takes built-ins straight from process.getBuiltinModule (Node 20.16+; no
  // module-loader work) and anything else from a createRequire made on first use.
  banner: {
    js: 'let __cjsReq; const require = (id) => process.getBuiltinModule(id) ?? (__cjsReq ??= process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);',
  },
  plugins: [lazyChildProcess, builtins, namedExportsOfCjs],
  sourcemap: "linked",
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
if (existsSync(dist)) renameSync(dist, old);
renameSync(tmp, dist);
rmSync(old, { recursive: true, force: true });
