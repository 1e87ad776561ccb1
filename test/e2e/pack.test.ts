// The package as a user gets it: `npm pack` (its prepack builds without source maps) in a copy of
// the checkout, the tarball installed into an empty directory from the registry, and then
// `partner-cli --version`, the README's first command and a workbook written and read run from
// there, with no terminal. The install stays light: `dependencies` holds only the packages dist/
// loads from node_modules (the build's EXTERNAL list), and the installed tree stays under a ceiling.
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/harness.js";
import { crmWorkbook } from "../helpers/workbooks.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));

/** The checkout's files that npm pack reads or the build needs, copied so the real dist/ is never rebuilt. */
function copyCheckout(): string {
  const dir = tempDir("pcli-pack-src-");
  for (const name of ["package.json", "README.md", "tsconfig.json", "bin", "src", "scripts", "docs", "man"]) {
    try {
      cpSync(join(ROOT, name), join(dir, name), { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** The ceiling of a user's install (issue 23): packages in node_modules, partner-cli included, and bytes. */
const MAX_PACKAGES = 60;
const MAX_BYTES = 40 * 2 ** 20;

interface Installed {
  /** The copy of the checkout (built by npm pack's prepack). */
  src: string;
  /** The directory the tarball was installed into. */
  home: string;
  tarball: string;
  files: string[];
  env: NodeJS.ProcessEnv;
}

let installing: Promise<Installed> | undefined;

/** npm pack in a copy of the checkout, and the tarball installed into an empty directory (once per file). */
function packAndInstall(src: string): Promise<Installed> {
  installing ??= (async () => {
    const packed = await execa("npm", ["pack", "--json", "--pack-destination", src], { cwd: src });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const home = tempDir("pcli-pack-home-");
    writeFileSync(join(home, "package.json"), JSON.stringify({ name: "empty", private: true }));
    await execa("npm", ["install", "--no-audit", "--no-fund", "--omit=dev", join(src, info!.filename)], {
      cwd: home,
    });
    const env = { PARTNER_CLI_CONFIG_DIR: tempDir(), NO_COLOR: "1" };
    const tarball = join(src, info!.filename);
    return { src, home, tarball, files: info!.files.map((f) => f.path), env };
  })();
  return installing;
}

/** Every installed package directory (scoped and nested ones too) with its size in bytes. */
function installedPackages(nodeModules: string): Map<string, number> {
  const out = new Map<string, number>();
  const size = (path: string): number => {
    const st = lstatSync(path);
    if (!st.isDirectory()) return st.size;
    return readdirSync(path).reduce((n, name) => n + size(join(path, name)), 0);
  };
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".")) continue;
      const names = name.startsWith("@") ? readdirSync(join(dir, name)).map((n) => `${name}/${n}`) : [name];
      for (const pkgName of names) {
        const path = join(dir, pkgName);
        if (!existsSync(join(path, "package.json"))) continue;
        out.set(path.slice(nodeModules.length + 1), size(path));
        walk(join(path, "node_modules"));
      }
    }
  };
  walk(nodeModules);
  return out;
}

/** The packages the installed dist/ imports by name (not bundled: loaded from node_modules). */
function importedByName(dist: string): Set<string> {
  const out = new Set<string>();
  const scan = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) scan(join(dir, e.name));
      else if (e.name.endsWith(".js"))
        for (const m of readFileSync(join(dir, e.name), "utf8").matchAll(
          /(?:^import\s[^;]*?\bfrom\s*|^import\s*|\bimport\(\s*|\brequire\(\s*)"((?:@[\w.-]+\/)?\w[\w.-]*)(?:\/[^"]*)?"/gm,
        )) {
          if (!m[1]!.startsWith("node:")) out.add(m[1]!);
        }
    }
  };
  scan(dist);
  return out;
}

describe("the packed package", () => {
  const src = copyCheckout();

  it("installs into an empty directory and runs --version and the README's first command", async () => {
    // A checkout that was never built says so, instead of a module-not-found stack trace.
    const unbuilt = await execa("node", [join(src, "bin", "partner-cli.js"), "me"], {
      reject: false,
      stdin: "ignore",
    });
    expect(unbuilt.exitCode).toBe(1);
    expect(unbuilt.stderr).toBe(
      `partner-cli is not built yet: run \`npm run build\` in ${src}/ first.`.replace("//", "/"),
    );
    const { home, files, env } = await packAndInstall(src);
    expect(files).toContain("bin/partner-cli.js");
    expect(files).toContain("dist/main.js");
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    for (const f of files.filter((f) => f.startsWith("dist/") && f.endsWith(".js"))) {
      expect(readFileSync(join(src, f), "utf8")).not.toMatch(/sourceMappingURL/);
    }
    // Nothing of the checkout leaks in: the installed package is the tarball's.
    expect(readdirSync(join(home, "node_modules", "partner-cli")).sort()).not.toContain("src");

    const version = await execa("npx", ["--no-install", "partner-cli", "--version"], {
      cwd: home,
      env,
      reject: false,
      stdin: "ignore",
    });
    // npx may warn about the machine's npm configuration; partner-cli itself prints nothing there.
    expect(version.stderr.split("\n").filter((l) => l && !l.startsWith("npm warn"))).toEqual([]);
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(version.exitCode).toBe(0);

    // The README's first command, as written, from the install directory with its example file.
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const args = /npm install && npm run build && npx partner-cli ([^#\n]+)/
      .exec(readme)![1]!
      .trim()
      .split(/\s+/);
    mkdirSync(join(home, "docs", "examples"), { recursive: true });
    cpSync(join(home, "node_modules", "partner-cli", "docs", "examples", "roster.csv"), join(home, args[2]!));
    const first = await execa("npx", ["--no-install", "partner-cli", ...args], {
      cwd: home,
      env,
      reject: false,
      stdin: "ignore",
    });
    expect(first.stderr).toMatch(/20 rows in 1 batch: 20 added/);
    expect(first.exitCode).toBe(0);
  }, 300_000);

  it(`stays light: at most ${MAX_PACKAGES} packages and ${MAX_BYTES / 2 ** 20} MB in node_modules`, async () => {
    const { home } = await packAndInstall(src);
    const pkgs = installedPackages(join(home, "node_modules"));
    const bytes = [...pkgs.values()].reduce((a, b) => a + b, 0);
    const largest = [...pkgs]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([name, n]) => `${name} ${(n / 2 ** 20).toFixed(1)} MB`)
      .join(", ");
    const facts = `${pkgs.size} packages, ${(bytes / 2 ** 20).toFixed(1)} MB; the largest: ${largest}`;
    expect(pkgs.size, `too many packages installed: ${facts}`).toBeLessThanOrEqual(MAX_PACKAGES);
    expect(bytes, `the install is too heavy: ${facts}`).toBeLessThanOrEqual(MAX_BYTES);
  }, 300_000);

  it("lists in dependencies exactly the packages dist/ loads from node_modules; the bundled ones are not installed, their licenses are in dist/", async () => {
    const { home } = await packAndInstall(src);
    const installed = join(home, "node_modules", "partner-cli");
    const deps = Object.keys(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).dependencies);
    expect([...importedByName(join(installed, "dist"))].sort()).toEqual(deps.sort());
    const notices = readFileSync(join(installed, "dist", "THIRD-PARTY-LICENSES.txt"), "utf8");
    for (const bundled of ["exceljs", "undici", "zod", "commander", "csv-parse"]) {
      expect(existsSync(join(home, "node_modules", bundled)), `${bundled} is bundled into dist/`).toBe(false);
      // Its license travels with it.
      expect(notices).toMatch(new RegExp(`^${bundled} \\d+\\.\\d+\\.\\d+\\S* \\(MIT\\)\\n\\n\\S`, "m"));
    }
  }, 300_000);

  it("writes and reads workbooks with the xlsx library bundled into dist/ (no exceljs in node_modules)", async () => {
    const { home, env } = await packAndInstall(src);
    const cli = (args: string[]) =>
      execa("npx", ["--no-install", "partner-cli", ...args, "--sandbox"], {
        cwd: home,
        env,
        reject: false,
        stdin: "ignore",
      });
    // A workbook from another tool whose sheets come before its workbook part: the reader holds
    // them in private temporary files.
    writeFileSync(join(home, "crm.xlsx"), await crmWorkbook());
    const imported = await cli(["roster", "import", "crm.xlsx", "--sheet", "Creators", "--json"]);
    expect(imported.stderr).toContain('Reading crm.xlsx, sheet "Creators" (2 of 3).');
    expect(JSON.parse(imported.stdout).summary).toEqual({
      rows: 3,
      added: 3,
      updated: 0,
      unchanged: 0,
      rejected: 0,
    });
    expect(imported.exitCode).toBe(0);
    const exported = await cli(["roster", "export", "--out", "roster.xlsx"]);
    expect(exported.exitCode).toBe(0);
    const again = await cli(["roster", "import", "roster.xlsx", "--json"]);
    expect(JSON.parse(again.stdout).summary).toMatchObject({ added: 0, updated: 0, rejected: 0 });
    expect(JSON.parse(again.stdout).summary.unchanged).toBeGreaterThanOrEqual(3);
    expect(again.exitCode).toBe(0);
    // From a checkout (outside node_modules) Node warns of `new Buffer()` in bundled code: none left.
    const fromCheckout = await execa(
      "node",
      [
        join(src, "bin", "partner-cli.js"),
        "roster",
        "export",
        "--out",
        join(home, "again.xlsx"),
        "--sandbox",
      ],
      { env, reject: false, stdin: "ignore" },
    );
    expect(fromCheckout.stderr).not.toMatch(/DeprecationWarning/);
    expect(fromCheckout.exitCode).toBe(0);
  }, 300_000);

  it("scripts/check-platforms.mjs (run by .ci/run) finds each native build for Windows x64 and names the one missing on Windows on ARM", async () => {
    const { tarball } = await packAndInstall(src);
    const r = await execa(
      "node",
      [join(ROOT, "scripts", "check-platforms.mjs"), "win32-x64", "win32-arm64"],
      {
        env: { PARTNER_TARBALL: tarball },
        reject: false,
        stdin: "ignore",
      },
    );
    expect(r.stdout).toBe(
      "win32-x64: a build of each native package (@napi-rs/keyring, fs-native-extensions, libsql).",
    );
    // libsql publishes no build for Windows on ARM (its optional dependencies list none).
    expect(r.stderr).toMatch(
      /^win32-arm64: missing native builds:\n {2}libsql: no win32-arm64 build installed \(none among @libsql\/darwin-arm64, /,
    );
    expect(r.stderr.split("\n").filter((l) => l.startsWith("  "))).toHaveLength(1);
    expect(r.exitCode).toBe(1);
  }, 300_000);
});
