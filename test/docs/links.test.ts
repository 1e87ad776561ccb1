// Every relative link in the repository's Markdown stays inside the repository and lands somewhere:
// each `[text](path)` and `[label]: path` of every tracked *.md names a tracked file or directory
// under the checkout (never `../shared/...` or anything else beside it), and each `#anchor` names a
// heading of the page it points to (GitHub's heading ids). Links inside code are not links.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function tracked(pattern: string): string[] {
  return execFileSync("git", ["ls-files", "-z", "--", pattern], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter(Boolean);
}

/** The text outside fenced code blocks and inline code, line for line (code lines left empty). */
function prose(text: string): string[] {
  let fence: string | undefined;
  return text.split("\n").map((line) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (open && open[0] === fence[0] && open.length >= fence.length) fence = undefined;
      return "";
    }
    if (open) {
      fence = open;
      return "";
    }
    return line.replace(/(`+)[\s\S]*?\1/g, "");
  });
}

/** GitHub's id of a heading: lower case, punctuation dropped, blanks as hyphens, repeats numbered. */
function anchors(text: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of text.split("\n")) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence;
    const heading = fence ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/<[^>]*>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Paths written as inline code that climb out of their page's directory (`../x/y.md`), by line. */
function climbingPaths(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  let fence = false;
  text.split("\n").forEach((line, i) => {
    if (/^\s*(`{3,}|~{3,})/.test(line)) fence = !fence;
    if (fence) return;
    for (const m of line.matchAll(/`(\.\.\/[^`\s]+)`/g)) out.push({ line: i + 1, target: m[1]! });
  });
  return out;
}

/** The relative link targets of one Markdown text, with their line numbers. */
function relativeLinks(text: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  prose(text).forEach((line, i) => {
    const inline = [...line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
    const defined = /^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/.exec(line)?.[1];
    for (const target of defined ? [...inline, defined] : inline) {
      if (target && !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("//"))
        out.push({ line: i + 1, target });
    }
  });
  return out;
}

/** What is wrong with one link of `file` (a path relative to ROOT), or undefined when it resolves. */
function broken(file: string, target: string, files: Set<string>): string | undefined {
  const [rawPath, anchor] = target.split("#", 2) as [string, string | undefined];
  const path = decodeURIComponent(rawPath);
  const abs = path ? resolve(ROOT, dirname(file), path) : resolve(ROOT, file);
  const rel = relative(ROOT, abs);
  if (rel.startsWith("..") || isAbsolute(rel)) return "leaves the repository";
  const isDir = existsSync(abs) && statSync(abs).isDirectory();
  if (!files.has(rel) && !(isDir && [...files].some((f) => f.startsWith(`${rel}/`))))
    return "names no tracked file";
  if (anchor === undefined || isDir || !rel.endsWith(".md")) return undefined;
  return anchors(readFileSync(abs, "utf8")).has(anchor) ? undefined : `no heading #${anchor} in ${rel}`;
}

describe("links in the repository's Markdown", () => {
  const files = new Set(tracked("*"));
  const pages = tracked("*.md");

  it("finds the pages and their links", () => {
    expect(pages).toContain("README.md");
    expect(pages).toContain("docs/configuration.md");
    const count = pages.reduce((n, p) => n + relativeLinks(readFileSync(join(ROOT, p), "utf8")).length, 0);
    expect(count).toBeGreaterThan(100);
  });

  it("every relative link names a tracked file inside the repository, and its heading", () => {
    const problems: string[] = [];
    for (const page of pages) {
      for (const { line, target } of relativeLinks(readFileSync(join(ROOT, page), "utf8"))) {
        const why = broken(page, target, files);
        if (why) problems.push(`${page}:${line}: (${target}) ${why}`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("a path written in a page (`../x.md`) names a tracked file from that page, never one beside the repository", () => {
    const problems: string[] = [];
    for (const page of pages) {
      for (const { line, target } of climbingPaths(readFileSync(join(ROOT, page), "utf8"))) {
        const why = broken(page, target, files);
        if (why) problems.push(`${page}:${line}: \`${target}\` ${why}`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("every *.md a source file names is a page of the repository", () => {
    const problems: string[] = [];
    const md = [...files].filter((f) => f.endsWith(".md"));
    // test/docs/ names missing pages on purpose, to prove the checks.
    for (const file of [...files].filter((f) => /\.(ts|mjs|js)$/.test(f) && !f.startsWith("test/docs/"))) {
      readFileSync(join(ROOT, file), "utf8")
        .split("\n")
        .forEach((text, i) => {
          for (const m of text.matchAll(/[\w./-]*\w\.md\b/g)) {
            const name = m[0].replace(/^(\.\.?\/)+/, "");
            if (!md.some((f) => f === name || f.endsWith(`/${name}`)))
              problems.push(`${file}:${i + 1}: ${m[0]} is no page of this repository`);
          }
        });
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("the checks catch what they are for", () => {
    const md = [
      "[spec](../shared/spec/partner-api.md) [ok](docs/exit-codes.md#exit-codes) `[x](nowhere.md)`",
      "```",
      "[in code](nowhere.md)",
      "```",
      "[site](https://example.com/a.md) [self](#local)",
      "[ref]: ../outside.md",
    ].join("\n");
    expect(relativeLinks(md).map((l) => l.target)).toEqual([
      "../shared/spec/partner-api.md",
      "docs/exit-codes.md#exit-codes",
      "#local",
      "../outside.md",
    ]);
    expect(broken("README.md", "../shared/spec/partner-api.md", files)).toBe("leaves the repository");
    expect(broken("docs/exports.md", "../../x.md", files)).toBe("leaves the repository");
    expect(broken("README.md", "docs/nowhere.md", files)).toBe("names no tracked file");
    expect(broken("README.md", "docs/exit-codes.md#no-such-heading", files)).toBe(
      "no heading #no-such-heading in docs/exit-codes.md",
    );
    expect(broken("README.md", "docs/exit-codes.md#exit-codes", files)).toBeUndefined();
    const written =
      'The API: `../shared/spec/partner-api.md`, `docs/x.md`, `f("../y.js")`.\n```\n`../z.md`\n```';
    expect(climbingPaths(written).map((p) => p.target)).toEqual(["../shared/spec/partner-api.md"]);
    expect(broken("docs/architecture.md", "../shared/design/architecture.md", files)).toBe(
      "names no tracked file",
    );
    expect([...anchors("## A `code` heading: yes!\n## Same\n## Same\n")]).toEqual([
      "a-code-heading-yes",
      "same",
      "same-1",
    ]);
  });
});
