// docs/commands/ and man/ are generated from the command tree; this fails when they are out of date.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { renderCommandDocs } from "../../src/cli/docs.js";
import { renderManPages } from "../../src/cli/man.js";
import { programTree } from "../../src/cli/tree.js";
import { completionModel } from "../../src/commands/completion/tree.js";
import { allCommands, program } from "./tree.js";

const hasMan = spawnSync("man", ["--version"]).status === 0;
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

describe("generated man pages", () => {
  const MAN = fileURLToPath(new URL("../../man/", import.meta.url));
  const pages = renderManPages(program());
  const MAN_FIX =
    'man/ is out of date with the command tree: run "npm run docs" and commit man/ and package.json.';

  test("partner-cli.1 plus one page per top-level command, each a man(7) page", () => {
    const tops = program().commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
    expect([...pages.keys()].sort()).toEqual(
      ["partner-cli.1", ...tops.map((c) => `partner-cli-${c.name()}.1`)].sort(),
    );
    for (const [name, text] of pages) {
      expect(text, name).toMatch(/^\.\\" Generated .*\n\.TH "PARTNER-CLI[A-Z-]*" "1" /);
      expect(text, name).toContain("\n.SH NAME\n");
      expect(text, name).not.toMatch(/[^\x20-\x7e\n]/); // ASCII only: non-ASCII is escaped for groff
    }
    const main = pages.get("partner-cli.1")!;
    for (const section of [".SH OPTIONS", ".SH COMMANDS", ".SH ENVIRONMENT", ".SH EXIT STATUS"])
      expect(main).toContain(section);
    expect(pages.get("partner-cli-campaigns.1")).toContain('.SS "partner\\-cli campaigns create"');
  });

  test("man/ matches the command tree, and package.json ships every page", () => {
    const problems: string[] = [];
    for (const [name, text] of pages) {
      const path = MAN + name;
      if (!existsSync(path)) problems.push(`${name}: missing`);
      else if (readFileSync(path, "utf8") !== text)
        problems.push(`${name}: differs at ${firstDifference(readFileSync(path, "utf8"), text)}`);
    }
    const present = existsSync(MAN) ? readdirSync(MAN).filter((f) => f.endsWith(".1")) : [];
    for (const f of present) if (!pages.has(f)) problems.push(`${f}: no such command any more`);
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const listed = [...(pkg.man as string[])].map((p) => p.replace(/^\.\/man\//, "")).sort();
    if (JSON.stringify(listed) !== JSON.stringify([...pages.keys()].sort()))
      problems.push(`package.json "man" lists ${listed.join(", ")}`);
    if (!(pkg.files as string[]).includes("man/")) problems.push('package.json "files" lacks man/');
    if (problems.length) expect.fail(`${MAN_FIX}\n  ${problems.join("\n  ")}`);
  });

  test.runIf(hasMan)(
    `man -l renders a page: name, synopsis, a verb's options and examples${hasMan ? "" : " (SKIPPED: man-db is not installed)"}`,
    () => {
      const out = execFileSync("man", ["-l", `${MAN}partner-cli-campaigns.1`], {
        encoding: "utf8",
        env: { ...process.env, MANWIDTH: "80", MANPAGER: "cat", PAGER: "cat", MAN_KEEP_FORMATTING: "" },
      });
      // Overstrike (bold, underline) removed; groff's typographic hyphens read as "-".
      const text = out.replace(/.\x08/g, "").replace(/[\u2010\u2212]/g, "-");
      const flat = text.replace(/\s+/g, " ");
      expect(text).toMatch(/^PARTNER-CLI-CAMPAIGNS\(1\)/);
      expect(flat).toContain("partner-cli-campaigns - list, create and manage campaigns");
      expect(flat).toContain("partner-cli campaigns create");
      expect(flat).toContain("--external-reference <ref>");
      expect(flat).toContain("$ partner-cli campaigns create --no-input --name 'Spring oats'");
      // A long example continues with " \" (it still runs when pasted).
      expect(text).toMatch(/\$ partner-cli campaigns create --no-input .* \\\n/);
    },
  );
});

describe("the completion model bin/ answers __complete from", () => {
  test("src/commands/completion/model.json is the program's completion model", () => {
    const path = fileURLToPath(new URL("../../src/commands/completion/model.json", import.meta.url));
    const generated = `${JSON.stringify(completionModel(programTree(program())), null, 2)}\n`;
    const committed = readFileSync(path, "utf8");
    if (committed !== generated)
      expect.fail(
        `src/commands/completion/model.json is out of date with the command tree (${firstDifference(committed, generated)}): run "npm run docs" and commit it.`,
      );
  });
});
