// The `partner-cli ...` command lines of the guides and of the pages that tell users what to run are
// real: each names a command of the command tree (noun and verb, or an alias) and only flags that
// command or the program declares, with a value where the flag takes one. Lines are read from code
// blocks and inline code, also after a path (`/usr/local/bin/partner-cli ...`, `ExecStart=...`);
// the words end at a shell operator, a comment or a redirection. The lines are checked, not run:
// the ones that run against the sandbox as written are in test/output/docs-examples.test.ts and
// test/cli/help-examples.test.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { isHidden, program } from "../cli/tree.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const GUIDES = readdirSync(join(ROOT, "docs", "guides"))
  .filter((f) => f.endsWith(".md"))
  .map((f) => `docs/guides/${f}`);
// Every hand-written page but two: benchmarks.md's code blocks are tables of figures whose rows start
// with the command measured, and architecture.md adds a hypothetical `offers brands` on purpose.
const NOT_COMMAND_LINES = new Set(["docs/benchmarks.md", "docs/architecture.md"]);
const PAGES = [
  ...GUIDES,
  "README.md",
  "CONTRIBUTING.md",
  "SECURITY.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`)
    .filter((f) => !NOT_COMMAND_LINES.has(f)),
];

/** The words after each `partner-cli` that starts a command in one piece of code, or none. */
function wordsOf(code: string): string[][] {
  const out: string[][] = [];
  for (const m of code.matchAll(/(?:^|[\s/"'=(;|&])partner-cli((?:[ \t]+[^\s`]+)+)/g)) {
    const words: string[] = [];
    for (const w of m[1]!.trim().split(/\s+/)) {
      if (/^(\||&&|;|#|<|&|\)|\d?>)/.test(w)) break;
      if (words.length === 0 && w === "partner-cli") continue; // npx --prefix DIR/partner-cli partner-cli
      words.push(w.replace(/[;)'"]+$/, ""));
    }
    if (words.length && /^(-|[a-z])/.test(words[0]!)) out.push(words);
  }
  return out;
}

/**
 * The command lines of a Markdown page, with their line numbers: every line of a code block (in a
 * console block only the `$ ` lines, in any block not a `#` comment line) and every inline code span
 * that starts with the command (after variable assignments or a path).
 */
function commandLines(text: string): { line: number; words: string[] }[] {
  const out: { line: number; words: string[] }[] = [];
  let fence: string | undefined;
  text.split("\n").forEach((line, i) => {
    const open = /^\s*```(\w*)/.exec(line);
    if (open) {
      fence = fence === undefined ? open[1] || "text" : undefined;
      return;
    }
    let pieces: string[];
    if (fence === "console") pieces = line.startsWith("$ ") ? [line.slice(2)] : [];
    else if (fence !== undefined) pieces = /^\s*#(?!!)/.test(line) ? [] : [line];
    else
      pieces = [...line.matchAll(/`([^`]+)`/g)]
        .map((m) => m[1]!)
        .filter((code) => /^(?:[A-Z_]+=\S*\s+)*(?:\S*\/)?partner-cli\s/.test(code));
    for (const piece of pieces) for (const words of wordsOf(piece)) out.push({ line: i + 1, words });
  });
  return out;
}

function findOption(cmds: Command[], flag: string): Option | undefined {
  for (const c of cmds) {
    const o = (c.options as readonly Option[]).find((x) => x.long === flag || x.short === flag);
    if (o) return o;
  }
  if (flag === "--help" || flag === "-h") return { required: false, optional: false } as Option;
  return undefined;
}

/** What is wrong with one command line, or undefined when the tree knows all of it. */
function problem(root: Command, words: string[]): string | undefined {
  const chain: Command[] = [root];
  const expectsValue = (o: Option) => o.required || o.optional;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const here = chain[chain.length - 1]!;
    if (w.startsWith("-") && w !== "-") {
      const [flag, inline] = w.split("=", 2) as [string, string | undefined];
      const o = findOption([...chain].reverse(), flag);
      if (!o) return `${flag} is no option of "${chainName(chain)}"`;
      if (o.required && inline === undefined) {
        if (i + 1 >= words.length) return `${flag} needs a value`;
        i++;
      } else if (inline !== undefined && !expectsValue(o)) return `${flag} takes no value`;
      continue;
    }
    const sub = here.commands.find((c) => !isHidden(c) && (c.name() === w || c.aliases().includes(w)));
    if (sub) {
      chain.push(sub);
      continue;
    }
    if (here.commands.some((c) => !isHidden(c)))
      return `"${w}" is no command of "${chainName(chain)}" (${here.commands.map((c) => c.name()).join(", ")})`;
  }
  const last = chain[chain.length - 1]!;
  const runs = (last as unknown as { _actionHandler: unknown })._actionHandler !== null;
  if (runs || words.some((w) => ["--version", "-V", "--help", "-h"].includes(w))) return undefined;
  // A noun named alone in prose ("every `partner-cli sandbox` verb") names the group, and shows its help.
  if (chain.length === 2 && words.length === 1) return undefined;
  return `"${chainName(chain)}" needs a verb (${last.commands.map((c) => c.name()).join(", ")})`;
}

function chainName(chain: Command[]): string {
  return chain.map((c) => c.name()).join(" ");
}

describe("command lines in the guides and pages", () => {
  const root = program();

  it("reads the guides", () => {
    expect(GUIDES).toContain("docs/guides/scheduling.md");
    expect(GUIDES).toContain("docs/guides/campaign-setup.md");
  });

  it("every partner-cli command line names a real command and only its flags", () => {
    const problems: string[] = [];
    let count = 0;
    for (const page of PAGES) {
      for (const { line, words } of commandLines(readFileSync(join(ROOT, page), "utf8"))) {
        count++;
        const why = problem(root, words);
        if (why) problems.push(`${page}:${line}: partner-cli ${words.join(" ")}\n    ${why}`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
    expect(count).toBeGreaterThan(40);
  });

  it("the check refuses what is not in the tree", () => {
    const lines = commandLines(
      [
        "```crontab",
        "# partner-cli runs every 15 minutes",
        "*/15 * * * * /usr/local/bin/partner-cli redemptions export --out /srv/r.csv --no-input 2>>/var/log/p.log",
        "ExecStart=/opt/bin/partner-cli --sandbox redemptions export --out=/srv/r.csv",
        "npm uninstall -g partner-cli",
        "```",
        "partner-cli needs Node; `partner-cli me` and partner-cli-0.1.0.tgz, `no partner-cli cursor wrote it`",
      ].join("\n"),
    );
    expect(lines.map((l) => l.words)).toEqual([
      ["redemptions", "export", "--out", "/srv/r.csv", "--no-input"],
      ["--sandbox", "redemptions", "export", "--out=/srv/r.csv"],
      ["me"],
    ]);
    for (const l of lines) expect(problem(root, l.words), l.words.join(" ")).toBeUndefined();
    expect(problem(root, ["redemptions", "export", "--limit-rows", "5"])).toBe(
      '--limit-rows is no option of "partner-cli redemptions export"',
    );
    expect(problem(root, ["redemptions", "exports", "--out", "f.csv"])).toMatch(/"exports" is no command/);
    expect(problem(root, ["redemptions", "--out", "f.csv"])).toMatch(/no option|needs a verb/);
    expect(problem(root, ["redemptions"])).toBeUndefined();
    expect(problem(root, ["redemptions", "export", "--out"])).toBe("--out needs a value");
    expect(problem(root, ["--version"])).toBeUndefined();
    expect(problem(root, ["sync"])).toBeUndefined(); // a command that runs and has verbs
  });
});
