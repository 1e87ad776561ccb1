// At run time the program declares a lazy noun's verbs only when commander dispatches to it
// (src/program.ts, lazyNoun in src/cli/define.ts). What the lazy tree shows before that must equal
// the full tree, and every path through it must reach the real declarations.
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, test } from "vitest";
import { buildProgram, REGISTRARS } from "../../src/program.js";
import { runIn } from "../helpers/run.js";
import { allCommands, program } from "./tree.js";

function lazyProgram(stdout = new PassThrough()): Command {
  return buildProgram(
    {
      makeContext: () => {
        throw new Error("this test does not run commands");
      },
      streams: { stdout, stderr: new PassThrough() },
    },
    { lazy: true },
  );
}

const full = program();
const LAZY = REGISTRARS.filter((r) => typeof r !== "function");
/** The lazy nouns' names, from their own first step. */
const lazyNames = () =>
  new Set(LAZY.map((r) => r.noun(new (full.constructor as typeof Command)("x") as never).name()));

/** The verbs declared after commander parsed `argv` (help and usage errors end the parse: caught). */
async function afterParse(argv: string[]): Promise<Command> {
  const lazy = lazyProgram();
  lazy.exitOverride();
  await lazy.parseAsync(argv, { from: "user" }).catch(() => {});
  return lazy;
}

describe("lazy noun declarations", () => {
  test("most nouns are lazy, and a lazy noun's own declaration has no options or arguments", () => {
    expect(LAZY.length).toBeGreaterThan(5);
    for (const r of LAZY) {
      const noun = r.noun(new (full.constructor as typeof Command)("partner-cli") as never);
      // The top-level help shows a noun's term from this step alone: the verbs must not change it.
      const real = full.commands.find((c) => c.name() === noun.name())!;
      expect({ aliases: real.aliases(), description: real.description() }).toEqual({
        aliases: noun.aliases(),
        description: noun.description(),
      });
      expect(real.options.length + real.registeredArguments.length, noun.name()).toBe(0);
    }
  });

  test("the top-level help of the lazy tree is the full tree's, and declares no verbs", () => {
    const lazy = lazyProgram();
    expect(lazy.helpInformation()).toBe(full.helpInformation());
    expect(lazy.commands.map((c) => c.name())).toEqual(full.commands.map((c) => c.name()));
    const stubs = lazy.commands.filter((c) => lazyNames().has(c.name()));
    expect(stubs.length).toBe(LAZY.length);
    for (const c of stubs) expect(c.commands.length + c.options.length, c.name()).toBe(0);
  });

  test("the noun commander dispatches to (by name or alias, after global options) and only it is declared", async () => {
    const cases: [string[], string][] = [
      [["roster", "list", "--help"], "roster"],
      [["campaign", "lst"], "campaigns"],
      [["--profile", "links", "--json", "links", "--help"], "links"],
      [["cursors", "--help"], "cursors"],
    ];
    const names = lazyNames();
    for (const [argv, noun] of cases) {
      const lazy = await afterParse(argv);
      const declared = lazy.commands.filter((c) => names.has(c.name()) && c.commands.length > 0);
      expect(
        declared.map((c) => c.name()),
        argv.join(" "),
      ).toEqual([noun]);
      const real = full.commands.find((c) => c.name() === noun)!;
      expect(declared[0]!.helpInformation()).toBe(real.helpInformation());
      expect(declared[0]!.aliases()).toEqual(real.aliases());
    }
  });

  test("help, completion and __complete declare every noun (they read the whole tree)", async () => {
    for (const argv of [
      ["help", "event"],
      ["__complete", "offers", "g"],
    ]) {
      const lazy = await afterParse(argv);
      for (const c of lazy.commands) {
        const real = full.commands.find((f) => f.name() === c.name())!;
        expect(c.commands.length, `${argv.join(" ")}: ${c.name()}`).toBe(real.commands.length);
      }
    }
  });

  test("every command's --help through the CLI equals the full tree's", async () => {
    for (const { path, cmd } of allCommands(full)
      .filter((c) => c.path.length <= 2)
      .slice(0, 80)) {
      const r = await runIn([...path, "--help"]);
      expect(r.exitCode, path.join(" ")).toBe(0);
      expect(r.stdout, path.join(" ")).toBe(cmd.helpInformation() + helpAfter(cmd));
    }
  });

  test("`help NOUN` prints the noun's full help", async () => {
    const r = await runIn(["help", "link"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("Usage: partner-cli links|link [options] [command]");
    expect(r.stdout).toContain("assign");
  });

  test("an unknown verb of a lazy noun gets commander's suggestion from the real verbs", async () => {
    const r = await runIn(["roster", "lst"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("Error: unknown command 'lst'. Did you mean list?");
    expect(r.stderr).toContain('Run "partner-cli roster --help" for usage.');
  });

  test("completion, run through the lazy CLI, is generated from the whole tree", async () => {
    const r = await runIn(["completion", "bash"]);
    expect(r.exitCode).toBe(0);
    for (const verb of ["import", "assign", "rotate-secret", "advance"]) expect(r.stdout).toContain(verb);
  });
});

/** The text addHelpText("after") adds (the examples), as commander prints it after helpInformation(). */
function helpAfter(cmd: Command): string {
  const chunks: string[] = [];
  const c = cmd as unknown as { listeners(e: string): ((ctx: unknown) => void)[] };
  for (const l of c.listeners("afterHelp"))
    l({ error: false, command: cmd, write: (s: string) => chunks.push(s) } as never);
  return chunks.join("");
}
