// At run time the program declares a noun's verbs only when that noun is named (src/program.ts).
// What the lazy tree shows before that must equal the full tree, and every path through it must
// reach the real declarations.
import { PassThrough } from "node:stream";
import type { Command } from "commander";
import { describe, expect, test } from "vitest";
import { buildProgram, LAZY_NOUNS, REGISTRARS } from "../../src/program.js";
import { runIn } from "../helpers/run.js";
import { allCommands, program } from "./tree.js";

function lazyProgram(argv: string[]): Command {
  return buildProgram(
    {
      makeContext: () => {
        throw new Error("this test does not run commands");
      },
      streams: { stdout: new PassThrough(), stderr: new PassThrough() },
    },
    { lazyFor: argv },
  );
}

const full = program();

describe("lazy noun declarations", () => {
  test("each lazy noun's summary equals what its registrar declares (name, aliases, description)", () => {
    expect(LAZY_NOUNS.size).toBeGreaterThan(5);
    for (const [register, summary] of LAZY_NOUNS) {
      expect(REGISTRARS).toContain(register);
      const real = full.commands.find((c) => c.name() === summary.name);
      expect(real, `no command "${summary.name}" in the full tree`).toBeDefined();
      expect({ name: real!.name(), aliases: real!.aliases(), description: real!.description() }).toEqual(
        summary,
      );
      // A stub shows no options or arguments of its own; the real noun must not have any either.
      expect(real!.options.length + real!.registeredArguments.length).toBe(0);
    }
  });

  test("the top-level help of the lazy tree is the full tree's, and declares no verbs", () => {
    const lazy = lazyProgram(["--help"]);
    expect(lazy.helpInformation()).toBe(full.helpInformation());
    expect(lazy.commands.map((c) => c.name())).toEqual(full.commands.map((c) => c.name()));
    const stubs = lazy.commands.filter((c) => [...LAZY_NOUNS.values()].some((s) => s.name === c.name()));
    expect(stubs.length).toBe(LAZY_NOUNS.size);
    for (const s of stubs) expect(s.commands, s.name()).toEqual([]);
  });

  test("the noun on the command line (by name or alias, after global options, or after help) is declared", () => {
    const cases: [string[], string][] = [
      [["roster", "list"], "roster"],
      [["campaign", "list"], "campaigns"],
      [["--profile", "links", "--json", "links", "list", "c1"], "links"],
      [["--base-url", "http://x", "help", "webhooks"], "webhooks"],
      [["help", "event"], "events"],
    ];
    for (const [argv, noun] of cases) {
      const lazy = lazyProgram(argv);
      // Of the lazily declared nouns, only the named one has its verbs (eager ones, such as sync, always do).
      const lazyNames = new Set([...LAZY_NOUNS.values()].map((s) => s.name));
      const declared = lazy.commands
        .filter((c) => lazyNames.has(c.name()) && c.commands.length > 0)
        .map((c) => c.name());
      expect(declared, argv.join(" ")).toEqual([noun]);
      const real = full.commands.find((c) => c.name() === noun)!;
      const cmd = lazy.commands.find((c) => c.name() === noun)!;
      expect(cmd.helpInformation()).toBe(real.helpInformation());
      expect(cmd.aliases()).toEqual(real.aliases());
    }
  });

  test("a noun reached without being found on the command line is declared when commander dispatches to it", async () => {
    // No command line given to the scan (lazyFor: []): commander still dispatches to the noun.
    const out = new PassThrough();
    let text = "";
    out.on("data", (c) => {
      text += c;
    });
    const lazy = buildProgram(
      {
        makeContext: () => {
          throw new Error("no commands run here");
        },
        streams: { stdout: out, stderr: new PassThrough() },
      },
      { lazyFor: [] },
    );
    await expect(lazy.parseAsync(["cursors", "--help"], { from: "user" })).rejects.toMatchObject({
      code: "commander.helpDisplayed",
    });
    expect(text).toContain("Usage: partner-cli cursors|cursor [options] [command]");
    expect(text).toContain("reset <target>");
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
    expect(r.stderr).toContain("unknown command 'lst'");
    expect(r.stderr).toContain("(Did you mean list?)");
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
