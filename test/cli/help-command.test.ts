// Help like gh's: `help NOUN VERB`, `help UNKNOWN` (exit 2 with a suggestion), help topics, every
// line within the width (COLUMNS, 80 when piped), inherited flags on every leaf, examples that
// continue with " \" and still read as the one command.
import { describe, expect, test } from "vitest";
import { examplesOf } from "../../src/cli/define.js";
import { exampleLines, helpWidth } from "../../src/cli/help.js";
import { HELP_TOPICS } from "../../src/cli/help-topics.js";
import { runIn } from "../helpers/run.js";
import { allCommands, program } from "./tree.js";

const commands = allCommands(program());
const widest = (s: string) => Math.max(...s.split("\n").map((l) => l.length));

describe("help NOUN VERB and help UNKNOWN", () => {
  test("`help campaigns create` prints the leaf's help, the same as `campaigns create --help`", async () => {
    const viaHelp = await runIn(["help", "campaigns", "create"]);
    const viaFlag = await runIn(["campaigns", "create", "--help"]);
    expect(viaHelp.exitCode, viaHelp.stderr).toBe(0);
    expect(viaHelp.stdout).toContain("Usage: partner-cli campaigns create [options]");
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    // Aliases work at both levels.
    expect((await runIn(["help", "campaign", "create"])).stdout).toBe(viaFlag.stdout);
  });

  test("`help` alone prints the program's help, with the topics named", async () => {
    const r = await runIn(["help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Usage: partner-cli [options] [command]");
    expect(r.stdout).toContain("environment, exit-codes, formats or sandbox");
  });

  test("an unknown command exits 2 with a suggestion, printing no help on stdout", async () => {
    const r = await runIn(["help", "campains"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('No command or help topic "campains" (did you mean "campaigns"?)');
    expect(r.stderr).toContain('Run "partner-cli help"');
  });

  test("an unknown verb exits 2 and names the noun's verbs as the next step", async () => {
    const r = await runIn(["help", "campaigns", "creat"]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('No verb of "campaigns" "creat" (did you mean "create"?)');
    expect(r.stderr).toContain('Run "partner-cli help campaigns" for its verbs.');
  });

  test("a misspelt topic gets the topic suggested; a word like nothing gets no guess", async () => {
    expect((await runIn(["help", "exit-code"])).stderr).toContain('(did you mean "exit-codes"?)');
    const r = await runIn(["help", "zzzzzzzz"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).not.toContain("did you mean");
  });

  test("with --json an unknown help word is one JSON error object, exit 2", async () => {
    const r = await runIn(["--json", "help", "nope"]);
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: "usage_error" }, exitCode: 2 });
  });
});

describe("help topics", () => {
  test.each(HELP_TOPICS.map((t) => [t.name, t] as const))("help %s", async (name, topic) => {
    const r = await runIn(["help", name]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.startsWith(`${name}: ${topic.summary}\n`)).toBe(true);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
    const narrow = await runIn(["help", name], { env: { COLUMNS: "50" } });
    expect(widest(narrow.stdout)).toBeLessThanOrEqual(50);
  });

  test("the exit-codes topic lists every code of the contract", async () => {
    const r = await runIn(["help", "exit-codes"]);
    for (const code of ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "130"])
      expect(r.stdout).toMatch(new RegExp(`^  ${code} +\\S`, "m"));
  });
});

describe("help width", () => {
  test("COLUMNS wins; else a terminal's width; else (piped) 80", () => {
    const tty = { isTTY: true, columns: 132 } as unknown as NodeJS.WritableStream;
    const pipe = {} as NodeJS.WritableStream;
    expect(helpWidth({ COLUMNS: "100" }, pipe)).toBe(100);
    expect(helpWidth({}, tty)).toBe(132);
    expect(helpWidth({}, pipe)).toBe(80);
    expect(helpWidth({ COLUMNS: "wide" }, pipe)).toBe(80);
  });

  test.each([
    ["piped (80)", {}, 80],
    ["COLUMNS=120", { COLUMNS: "120" }, 120],
    ["COLUMNS=60", { COLUMNS: "60" }, 60],
  ] as const)("%s: no line of any --help is wider", async (_n, env, width) => {
    const over: string[] = [];
    for (const path of [[], ...commands.map((c) => c.path)]) {
      const r = await runIn([...path, "--help"], { env });
      expect(r.exitCode, path.join(" ")).toBe(0);
      for (const line of r.stdout.split("\n"))
        if (line.length > width) over.push(`${path.join(" ")}: ${line.length}: ${line}`);
    }
    expect(over).toEqual([]);
  });

  test("every leaf's help has the inherited (global) flags; a noun's does not", async () => {
    for (const { path, cmd } of commands) {
      const r = await runIn([...path, "--help"]);
      if (cmd.commands.length === 0) {
        expect(r.stdout, path.join(" ")).toMatch(/\nInherited flags:\n( .*\n)* {2}--profile <name> /);
        expect(r.stdout).toContain("  --sandbox ");
      } else expect(r.stdout, path.join(" ")).not.toContain("Inherited flags:");
    }
  });

  test("a long example continues with \\ and reads back as the example", () => {
    const all = commands.flatMap((c) => examplesOf(c.cmd));
    const long = all.filter((e) => e.length + 4 > 80);
    expect(long.length).toBeGreaterThan(0);
    for (const e of all) {
      const lines = exampleLines(e, 80);
      for (const l of lines.slice(0, -1)) expect(l.endsWith(" \\")).toBe(true);
      expect(
        lines
          .map((l) => l.replace(/ \\$/, ""))
          .join(" ")
          .replace(/^ {2}\$ /, "")
          .replace(/ {7}/g, " "),
      ).toBe(e);
    }
  });
});
