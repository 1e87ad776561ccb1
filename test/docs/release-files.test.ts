// The release files: a LICENSE that says what package.json says, a changelog with a section for the
// package's version, and the files a user of the tarball needs (LICENSE, README, CHANGELOG,
// SECURITY) in what `npm pack` puts in it.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const read = (name: string) => readFileSync(join(ROOT, name), "utf8");
const pkg = JSON.parse(read("package.json")) as {
  version: string;
  license: string;
  repository: { url: string };
};

describe("release files", () => {
  it("LICENSE is the MIT license package.json names, with the copyright line", () => {
    expect(pkg.license).toBe("MIT");
    const license = read("LICENSE");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 partner-cli contributors\n/);
    expect(license).toContain('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND');
  });

  it("CHANGELOG.md keeps an Unreleased section and one for the package's version", () => {
    const changelog = read("CHANGELOG.md");
    expect(changelog).toContain("## [Unreleased]");
    expect(changelog).toMatch(
      new RegExp(`^## \\[${pkg.version.replace(/\./g, "\\.")}\\] - \\d{4}-\\d{2}-\\d{2}$`, "m"),
    );
    expect(changelog).toContain(`[${pkg.version}]: `);
  });

  it("SECURITY.md says how to report privately, on the repository package.json names", () => {
    const repo = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
    expect(read("SECURITY.md")).toContain(`${repo}/security/advisories/new`);
  });

  it("the packed tarball carries LICENSE, README.md, CHANGELOG.md and SECURITY.md", () => {
    // --ignore-scripts: the list of files only, without prepack's build.
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: ROOT,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const files = (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "CHANGELOG.md", "SECURITY.md"]));
  });
});
