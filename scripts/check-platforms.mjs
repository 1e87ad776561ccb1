// Checks that every native dependency ships a build for other platforms than this one (CI cannot run
// Windows here): packs the package (npm pack; its prepack builds dist/), installs the tarball into an
// empty temporary directory as npm would on the target (`npm install --os=OS --cpu=CPU --omit=dev
// --ignore-scripts`, npm 10+), and looks in the installed tree for each native package's build:
//
// - a package with per-platform optional dependencies (libsql -> @libsql/win32-x64-msvc,
//   @napi-rs/keyring -> @napi-rs/keyring-win32-x64-msvc): one of them installed whose package.json
//   `os` and `cpu` accept the target;
// - a package shipping prebuilds inside itself (fs-native-extensions): a .node file in
//   prebuilds/OS-CPU/.
//
// Usage: node scripts/check-platforms.mjs [OS-CPU ...]   (default: win32-x64)
//        PARTNER_TARBALL=FILE.tgz skips the pack and checks that tarball.
// Exits 1 naming each missing build; 0 when every target has all of them. Used by .ci/run.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The native packages partner-cli loads: each must be found and checked, or the check is void. */
const NATIVE = ["libsql", "@napi-rs/keyring", "fs-native-extensions"];
const PLATFORM_NAME = /(?:^|[-/])(?:aix|android|darwin|freebsd|linux|openbsd|sunos|win32)-/;

const npm = (args, cwd) =>
  execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    shell: process.platform === "win32",
  });

const readJson = (file) => JSON.parse(readFileSync(file, "utf8"));

/** Installed package directories by name (top level and nested node_modules). */
function installed(nodeModules, out = new Map()) {
  if (!existsSync(nodeModules)) return out;
  for (const name of readdirSync(nodeModules)) {
    if (name.startsWith(".")) continue;
    const names = name.startsWith("@")
      ? readdirSync(join(nodeModules, name)).map((n) => `${name}/${n}`)
      : [name];
    for (const pkg of names) {
      const dir = join(nodeModules, pkg);
      if (!existsSync(join(dir, "package.json"))) continue;
      if (!out.has(pkg)) out.set(pkg, dir);
      installed(join(dir, "node_modules"), out);
    }
  }
  return out;
}

/** npm's rule for package.json `os` and `cpu`: listed, or not excluded by a list of "!name" only. */
function accepts(list, value) {
  if (!Array.isArray(list) || list.includes(value)) return true;
  return !list.includes(`!${value}`) && list.every((v) => v.startsWith("!"));
}

/** What is missing for `os`-`cpu` in one package (null when its builds are not per platform). */
function missingBuild(pkg, dir, tree, os, cpu) {
  const manifest = readJson(join(dir, "package.json"));
  const platformDeps = Object.keys(manifest.optionalDependencies ?? {}).filter((n) => PLATFORM_NAME.test(n));
  if (platformDeps.length > 0) {
    const found = platformDeps.some((n) => {
      const at = tree.get(n);
      if (!at) return false;
      const m = readJson(join(at, "package.json"));
      return accepts(m.os, os) && accepts(m.cpu, cpu);
    });
    if (found) return "";
    const named = platformDeps.filter((n) => n.includes(`${os}-${cpu}`));
    return `${pkg}: no ${os}-${cpu} build installed (${named.length ? `expected ${named.join(" or ")}` : `none among ${platformDeps.join(", ")}`})`;
  }
  const prebuilds = join(dir, "prebuilds");
  if (existsSync(prebuilds)) {
    const target = join(prebuilds, `${os}-${cpu}`);
    const ok = existsSync(target) && readdirSync(target).some((f) => f.endsWith(".node"));
    return ok ? "" : `${pkg}: no prebuilds/${os}-${cpu}/*.node in the package`;
  }
  return null;
}

function pack(dir) {
  if (process.env.PARTNER_TARBALL) return resolve(process.env.PARTNER_TARBALL);
  const [info] = JSON.parse(npm(["pack", "--json", "--pack-destination", dir], ROOT));
  return join(dir, info.filename);
}

function checkTarget(tarball, target, dir) {
  const [os, cpu] = target.split("-");
  const home = join(dir, target);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "package.json"), JSON.stringify({ name: "platform-check", private: true }));
  npm(
    [
      "install",
      `--os=${os}`,
      `--cpu=${cpu}`,
      "--omit=dev",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      tarball,
    ],
    home,
  );
  const tree = installed(join(home, "node_modules"));
  const problems = [];
  const checked = [];
  for (const [pkg, at] of tree) {
    const missing = missingBuild(pkg, at, tree, os, cpu);
    if (missing === null) continue;
    checked.push(pkg);
    if (missing) problems.push(missing);
  }
  for (const pkg of NATIVE)
    if (!checked.includes(pkg))
      problems.push(`${pkg}: not installed, or it ships its builds in a way this check does not know`);
  return { checked, problems };
}

const targets = process.argv.slice(2).length ? process.argv.slice(2) : ["win32-x64"];
const dir = mkdtempSync(join(tmpdir(), "partner-cli-platforms-"));
let failed = false;
try {
  const tarball = pack(dir);
  for (const target of targets) {
    const { checked, problems } = checkTarget(tarball, target, dir);
    if (problems.length) {
      failed = true;
      process.stderr.write(`${target}: missing native builds:\n${problems.map((p) => `  ${p}\n`).join("")}`);
    } else process.stdout.write(`${target}: a build of each native package (${checked.join(", ")}).\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
