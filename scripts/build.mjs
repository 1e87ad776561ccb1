// Builds src/ into dist/ with esbuild. Start-up cost is what this is about (docs/benchmarks.md):
//
// - The dependencies are bundled into the chunks, so nothing is resolved from node_modules file by
//   file at run time. Only the packages in EXTERNAL stay outside: native bindings and packages that
//   load files next to their own module (database drivers, the keychain, file locks, jq's wasm),
//   which the commands that use them import lazily. package.json's `dependencies` are exactly these
//   (a user's install holds nothing else; test/e2e/pack.test.ts checks it and the install's size);
//   everything bundled is a devDependency. exceljs is bundled too, into its own lazily loaded chunk
//   (bench/xlsx-libs.mjs and docs/benchmarks.md say why this library and why bundled).
// - dist/THIRD-PARTY-LICENSES.txt names each bundled package with its license text; the packages'
//   own license comments stay at the end of each bundle (esbuild's default). `new Buffer()` in a
//   bundled package is rewritten (noBufferConstructor below): Node warns of it outside node_modules.
// - Entry points: `main` (the program) and `version` (bin/ answers --version with it alone). And
//   dist/complete.js, a bundle of its own (sharing no chunk, so main.js's start-up is unchanged):
//   bin/ answers `__complete` from the completion model with it alone (src/commands/completion/fast.ts).
//   Lazily imported command modules are split into their own chunks, so start-up parses only what
//   a command needs. No dependency's imports are rewritten (what they load, they load).
//
// Builds into a temporary directory and swaps it in, so a process running from dist/ never sees a
// half-written tree. `--release` (npm's prepack) builds without source maps: the package ships none.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Packages never bundled (and the only `dependencies`): native bindings, or packages loading files of their own. */
export const EXTERNAL = [
  "libsql",
  "@libsql/*",
  "pg",
  "pg-native",
  "pg-cloudflare",
  "pg-copy-streams",
  // jq compiled to WebAssembly loads its .wasm file next to its own module.
  "jq-wasm",
  // The OS keychain: a native binding per platform, loaded only when a key is kept there.
  "@napi-rs/keyring",
  "@napi-rs/keyring-*",
  // File locks held by the OS: a native addon per platform, found next to its own module; loaded
  // only when a lock is taken.
  "fs-native-extensions",
];

const SOURCEMAP = process.argv.includes("--release") ? false : "linked";

/** The commit built (`partner-cli version`): `git rev-parse --short HEAD`, `-dirty` for a changed tree; absent outside a checkout. */
function gitCommit() {
  const cwd = realpathSync(fileURLToPath(new URL("../", import.meta.url)));
  const git = (...args) =>
    execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  try {
    // A copy of the sources inside another repository is not a checkout of this one.
    if (realpathSync(git("rev-parse", "--show-toplevel").trim()) !== cwd) return undefined;
    const head = git("rev-parse", "--short", "HEAD").trim();
    return git("status", "--porcelain", "--untracked-files=no").trim() ? `${head}-dirty` : head;
  } catch {
    return undefined;
  }
}
const DEFINE = { __PARTNER_CLI_COMMIT__: JSON.stringify(gitCommit() ?? "") };

const root = new URL("../", import.meta.url);
const tmp = new URL(`dist.tmp-${process.pid}/`, root);
const old = new URL(`dist.old-${process.pid}/`, root);
const dist = new URL("dist/", root);

/**
 * Packages our code calls synchronously (through their default export, a function) whose loading
 * does costly work: their module is evaluated on the first call instead of when the chunk holding
 * it loads. string-width builds an Intl.Segmenter and Unicode-set regular expressions as it loads
 * (about 20 ms), and every command that prints a record or a table imports it (src/io/table.ts),
 * while most calls (printable ASCII) never reach that machinery. Only imports from our own sources
 * are deferred; a package that imports one of these gets it as it is.
 */
const LAZY_DEFAULT_EXPORTS = ["string-width"];

const lazyDefaultExports = {
  name: "lazy-default-exports",
  setup(b) {
    const names = new Set(LAZY_DEFAULT_EXPORTS);
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (!names.has(args.path) || args.namespace === "lazy-default") return undefined;
      if (/[\\/]node_modules[\\/]/.test(args.importer)) return undefined;
      return { path: args.path, namespace: "lazy-default", pluginData: args.resolveDir };
    });
    // esbuild wraps a bundled ES module that is require()d so that it is evaluated on first use.
    b.onLoad({ filter: /.*/, namespace: "lazy-default" }, (args) => ({
      contents: `let fn;\nexport default function lazyDefault(...a) {\n  return (fn ??= require(${JSON.stringify(args.path)}).default)(...a);\n}\n`,
      resolveDir: args.pluginData,
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

/**
 * `new Buffer(x)` in bundled packages (exceljs's zip and unzip libraries: archiver-utils, binary,
 * buffers...) becomes Buffer.alloc(x) for a size and Buffer.from(x, ...) otherwise, which is what it
 * does since Node 8. Node prints its DEP0005 warning for that call from code outside node_modules, and
 * bundled code sits in dist/: a checkout's run would print it on stderr.
 */
const noBufferConstructor = {
  name: "no-buffer-constructor",
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!/\bnew Buffer\(/.test(text)) return undefined;
      // Appended (a hoisted function): a "use strict" first line stays first, and lines keep their numbers.
      const helper =
        '\nfunction __newBuffer(a, b, c) { return typeof a === "number" ? Buffer.alloc(a) : Buffer.from(a, b, c); }\n';
      return { contents: text.replace(/\bnew Buffer\(/g, "__newBuffer(") + helper, loader: "js" };
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

const BANNER =
  'let __cjsReq; const require = (id) => process.getBuiltinModule(id) ?? (__cjsReq ??= process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);';

/** Files reached from `file` through static imports of relative paths. */
function staticClosure(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const m of readFileSync(file, "utf8").matchAll(/^import\s+(?:[^;]*?\sfrom\s+)?"(\.[^"]+)"/gm))
    staticClosure(resolve(dirname(file), m[1]), seen);
  return seen;
}

/**
 * Every start loads main.js and the chunks it imports statically (shared with the lazily imported
 * command modules, so esbuild made them separate files): about ten files, each resolved, read,
 * compiled and linked by Node's ES module loader. This folds them into main.js with a second esbuild
 * pass, and leaves each folded chunk as a one-line module re-exporting its bindings from main.js, so
 * the command modules that import it share main.js's single copy (one set of classes for instanceof).
 * The chunks --version uses stay as they are (it must not load main.js).
 */
async function mergeStartupChunks(dir) {
  const main = join(dir, "main.js");
  const keep = staticClosure(join(dir, "version.js"));
  const merged = [...staticClosure(main)].filter((f) => f !== main && !keep.has(f));
  if (merged.length === 0) return;
  const names = new Map();
  let entry = `export * from ${JSON.stringify(main)};\n`;
  merged.forEach((file, i) => {
    const clause = /\nexport \{([^}]*)\};\s*(?:\/\/# sourceMappingURL=.*)?\s*$/.exec(
      readFileSync(file, "utf8"),
    );
    const exported = clause
      ? clause[1]
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean)
          .map((x) => x.split(/\s+as\s+/).at(-1))
      : [];
    names.set(
      file,
      exported.map((n) => [n, `__m${i}_${n}`]),
    );
    if (exported.length)
      entry += `export { ${exported.map((n) => `${n} as __m${i}_${n}`).join(", ")} } from ${JSON.stringify(file)};\n`;
    else entry += `import ${JSON.stringify(file)};\n`;
  });
  const inside = new Set([main, ...merged]);
  await build({
    stdin: { contents: entry, resolveDir: dir, loader: "js", sourcefile: "startup-entry.js" },
    outfile: join(dir, "main.merged.js"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    banner: { js: BANNER },
    sourcemap: SOURCEMAP,
    logLevel: "warning",
    plugins: [
      {
        name: "only-the-startup-chunks",
        setup(b) {
          b.onResolve({ filter: /^\.{1,2}\// }, (args) => {
            const abs = resolve(args.resolveDir, args.path);
            if (inside.has(abs)) return { path: abs };
            return { path: `./${relative(dir, abs)}`, external: true };
          });
          b.onResolve({ filter: /^\// }, (args) => (inside.has(args.path) ? { path: args.path } : undefined));
        },
      },
    ],
  });
  renameSync(join(dir, "main.merged.js"), main);
  if (SOURCEMAP) {
    renameSync(join(dir, "main.merged.js.map"), `${main}.map`);
    writeFileSync(main, readFileSync(main, "utf8").replace("main.merged.js.map", "main.js.map"));
  }
  for (const file of merged) {
    const list = names.get(file);
    const from = JSON.stringify(`./${relative(dirname(file), main)}`);
    writeFileSync(
      file,
      list.length
        ? `export { ${list.map(([n, m]) => `${m} as ${n}`).join(", ")} } from ${from};\n`
        : `import ${from};\n`,
    );
    rmSync(`${file}.map`, { force: true });
  }
}

const { metafile } = await build({
  entryPoints: { main: "src/main.ts", version: "src/version.ts" },
  outdir: tmp.pathname,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL,
  define: DEFINE,
  // Bundled CommonJS packages require Node's built-in modules, and ESM output has no `require`: each
  // chunk gets one that takes built-ins straight from process.getBuiltinModule (Node 20.16+; no
  // module-loader work) and anything else from a createRequire made on first use.
  banner: { js: BANNER },
  plugins: [lazyDefaultExports, builtins, namedExportsOfCjs, noBufferConstructor],
  sourcemap: SOURCEMAP,
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
  metafile: true,
});

/**
 * dist/THIRD-PARTY-LICENSES.txt: each package bundled into dist/ (read from esbuild's metafile), its
 * version, its license and the text of its license file. The bundles keep the packages' own license
 * comments too (esbuild's legalComments, at the end of each file), but most packages have none.
 */
function writeThirdPartyLicenses(dir, meta) {
  const dirs = new Set();
  for (const input of Object.keys(meta.inputs)) {
    // Inputs of a plugin's namespace ("builtin:node:fs?...") are not files.
    const m = /^[a-z-]+:/.test(input) ? null : /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(resolve(fileURLToPath(root), m[1]));
  }
  const entries = [...dirs]
    .map((d) => ({ d, pkg: JSON.parse(readFileSync(join(d, "package.json"), "utf8")) }))
    .filter(
      ({ pkg }, i, all) =>
        all.findIndex((o) => o.pkg.name === pkg.name && o.pkg.version === pkg.version) === i,
    )
    .sort((a, b) => a.pkg.name.localeCompare(b.pkg.name))
    .map(({ d, pkg }) => {
      const file = readdirSync(d).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
      const text = file ? readFileSync(join(d, file), "utf8").trim() : "(no license file in the package)";
      return `${pkg.name} ${pkg.version} (${pkg.license ?? "license not stated"})\n\n${text}\n`;
    });
  const head = "Packages bundled into partner-cli's dist/ files, with their licenses.\n";
  writeFileSync(join(dir, "THIRD-PARTY-LICENSES.txt"), [head, ...entries].join(`\n${"-".repeat(78)}\n\n`));
}

writeThirdPartyLicenses(tmp.pathname, metafile);

await mergeStartupChunks(tmp.pathname);
await build({
  entryPoints: { complete: "src/commands/completion/fast.ts" },
  outdir: tmp.pathname,
  bundle: true,
  // The model is most of it: whitespace-free, it is a third of the text to parse on every TAB.
  minify: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: SOURCEMAP,
  logLevel: "warning",
});
if (existsSync(dist)) renameSync(dist, old);
renameSync(tmp, dist);
rmSync(old, { recursive: true, force: true });
