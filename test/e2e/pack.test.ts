// The package as a user gets it: `npm pack` (its prepack builds without source maps) in a copy of
// the checkout, the tarball installed into an empty directory from the registry, and then
// `partner-cli --version` and the README's first command run from there, with no terminal.
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers/harness.js";

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

describe("the packed package", () => {
  it("installs into an empty directory and runs --version and the README's first command", async () => {
    const src = copyCheckout();
    // A checkout that was never built says so, instead of a module-not-found stack trace.
    const unbuilt = await execa("node", [join(src, "bin", "partner-cli.js"), "me"], {
      reject: false,
      stdin: "ignore",
    });
    expect(unbuilt.exitCode).toBe(1);
    expect(unbuilt.stderr).toBe(
      `partner-cli is not built yet: run \`npm run build\` in ${src}/ first.`.replace("//", "/"),
    );
    const packed = await execa("npm", ["pack", "--json", "--pack-destination", src], { cwd: src });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    const files = info!.files.map((f) => f.path);
    expect(files).toContain("bin/partner-cli.js");
    expect(files).toContain("dist/main.js");
    expect(files.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(files.filter((f) => f.startsWith("src/") || f.startsWith("test/"))).toEqual([]);
    for (const f of files.filter((f) => f.startsWith("dist/") && f.endsWith(".js"))) {
      expect(readFileSync(join(src, f), "utf8")).not.toMatch(/sourceMappingURL/);
    }

    const home = tempDir("pcli-pack-home-");
    writeFileSync(join(home, "package.json"), JSON.stringify({ name: "empty", private: true }));
    await execa("npm", ["install", "--no-audit", "--no-fund", "--omit=dev", join(src, info!.filename)], {
      cwd: home,
    });
    // Nothing of the checkout leaks in: the installed package is the tarball's.
    expect(readdirSync(join(home, "node_modules", "partner-cli")).sort()).not.toContain("src");

    const env = { PARTNER_CLI_CONFIG_DIR: tempDir(), NO_COLOR: "1" };
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
});
