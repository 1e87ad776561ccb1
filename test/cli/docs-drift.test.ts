// docs/commands/ is generated from the command tree; this fails when it is out of date.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { renderCommandDocs } from "../../src/cli/docs.js";
import { allCommands, program } from "./tree.js";

const DIR = fileURLToPath(new URL("../../docs/commands/", import.meta.url));
const FIX =
  'docs/commands/ is out of date with the command tree: run "npm run docs" and commit docs/commands/.';

function firstDifference(a: string, b: string): string {
  const al = a.split("\n");
  const bl = b.split("\n");
  for (let i = 0; i < Math.max(al.length, bl.length); i++) {
    if (al[i] !== bl[i])
      return `line ${i + 1}: committed ${JSON.stringify(al[i] ?? "<end>")}, generated ${JSON.stringify(bl[i] ?? "<end>")}`;
  }
  return "identical";
}

describe("generated command docs", () => {
  const p = program();
  const files = renderCommandDocs(p);

  test("one page per top-level command plus an index, each command with usage and examples", () => {
    const tops = p.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    expect([...files.keys()].sort()).toEqual(["README.md", ...tops.map((c) => `${c.name()}.md`)].sort());
    const profiles = files.get("profiles.md")!;
    expect(profiles).toContain("## partner-cli profiles remove");
    expect(profiles).toContain("Usage: partner-cli profiles remove [options] <name>");
    expect(profiles).toContain("partner-cli profiles remove staging --yes");
    expect(files.get("login.md")).toContain("`--api-key-stdin`");
    const index = files.get("README.md")!;
    for (const { path } of allCommands(p)) expect(index).toContain(`partner-cli ${path.join(" ")}`);
    expect(index).toContain("`--profile <name>`");
  });

  test("rendering is deterministic", () => {
    const again = renderCommandDocs(program());
    expect([...again.entries()]).toEqual([...files.entries()]);
  });

  test("docs/commands/ matches the command tree", () => {
    const problems: string[] = [];
    for (const [name, text] of files) {
      const path = DIR + name;
      if (!existsSync(path)) {
        problems.push(`${name}: missing`);
        continue;
      }
      const committed = readFileSync(path, "utf8");
      if (committed !== text) problems.push(`${name}: differs at ${firstDifference(committed, text)}`);
    }
    const present = existsSync(DIR) ? readdirSync(DIR).filter((f) => f.endsWith(".md")) : [];
    for (const f of present) if (!files.has(f)) problems.push(`${f}: no such command any more`);
    if (problems.length) expect.fail(`${FIX}\n  ${problems.join("\n  ")}`);
  });
});
